"""
The chunks as lookups, and the fast paths of the check.

Everything here is an optimisation with a contract: **every view has a
reference twin and a property test proving they agree.** The check's verdict
must be the one a plain reading of the chunks and the answer gives; these
modules only make it cheap.

* :mod:`.text_index` (:class:`~.text_index.TextIndex`): the core, the keys of
  the chunks' claims, read at once or, for long number-dense chunks, a chunk
  at a time when a lookup needs it. Twin: reading every chunk eagerly;
  ``tests/grounding/index/test_lazy_index.py``.
* :mod:`.digests` and :mod:`.prefilter`: what a chunk's text must contain
  before it can provide a key, searched in C over all chunks' digests. Twin:
  the scanner's own claims; ``TestEveryProvidedKeyHasItsEvidence``.
* The views of the index, each holding nothing until an answer needs it:
  :mod:`.quotations` (the chunks folded, for FG003), :mod:`.word_numbers`
  (numbers spelled in words; twin: every run read at once,
  ``tests/grounding/index/test_word_numbers.py``), :mod:`.number_line` (numbers by
  magnitude, for hedged numbers) and :mod:`.unit_bindings` with
  :mod:`.unit_lookup` (the units a number is written with; twin: every
  number read, ``tests/grounding/index/test_unit_lookup.py``).
* :mod:`.folded`: the chunks FG004's copy rule folds, only those whose
  case-folded digest holds an answer's probe. Twin: every chunk folded;
  ``TestFoldedChunks`` in ``tests/grounding/index/test_folded.py``.
* :mod:`.blocks`: a long answer judged block by block, each distinct block
  once. Twin: the answer scanned whole; ``tests/grounding/index/test_blocks.py``.
"""
