"""
The chunks as lookups, and the fast paths of the check.

Everything here is an optimisation with a contract: **every view has a
reference twin and a property test proving they agree.** The check's verdict
must be the one a plain reading of the chunks and the answer gives; these
modules only make it cheap.

* :mod:`.text_index` (:class:`~.text_index.TextIndex`): the chunks read once
  into keys, with the views only some answers need (folded text for
  quotations, number words, sorted values, unit lookups) built on first use.
  Twin: reading every chunk eagerly; ``tests/grounding/test_lazy_index.py``.
* :mod:`.prefilter`: what a chunk's text must contain before it can provide
  a key, so a chunk is read only when an answer may need it. Twin: the
  scanner's own claims; ``TestEveryProvidedKeyHasItsEvidence``.
* :mod:`.unit_lookup`: with which units the chunks write a number.
  Twin: a scan of every occurrence; ``tests/grounding/test_unit_lookup.py``.
* :mod:`.blocks`: a long answer judged block by block, each distinct block
  once. Twin: the answer scanned whole; ``tests/grounding/test_blocks.py``.
"""
