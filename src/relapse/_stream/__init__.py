"""
The streaming release (``release="sentence"``): a caller reads the answer as it passes.

What is released when, and the stream the caller holds, live here:

* :mod:`relapse._stream.grounded`: :class:`~relapse.GroundedStream` and
  :class:`~relapse.AsyncGroundedStream`, the stream handed to the caller,
  which runs the rest of the loop as it is iterated;
* :mod:`relapse._stream.release`: one attempt's stream read piece by piece
  (a sub-generator of the loop): the text fed to the incremental check, the
  pieces released once their text passed, a restart's repeat dropped, the
  continuation joined to the released prefix.

The other parts of the streaming release sit with what they are part of:

* the judging of a growing text is a check's: the generic incremental check
  and the :class:`relapse.checks.StreamReader` protocol are in
  :mod:`relapse.checks` (``_incremental.py``, ``_contract.py``; a cascade's
  stream in ``_cascade_stream.py``), and the default check's own reading of
  a growing answer (its reach from the rules, the window) is in
  ``relapse/grounding/_stream.py``;
* the cut into sentences and the pairing of quotation marks, which the
  release applies whatever the check, are readers of the answer's text
  (:mod:`relapse._read.sentences`, :mod:`relapse._read.quotation_marks`), as
  are the SDKs' stream pieces (:mod:`relapse._read.streams`);
* the loop's drivers (``relapse._loop.pump`` and ``apump``) answer every
  request of the loop, streamed or not, so they stay beside the loop.

Nothing is imported here, so a module of the package imports only the one
it needs.
"""
