"""
Reading text into claims, the same way in answers and in chunks.

The first stage of the default check. :mod:`.scan` finds every claim that
holds a digit and joins ranges; :mod:`.numbers` and :mod:`.dates` read one
match as a number, token, fraction, signed value, day, year or date;
:mod:`.words` reads numbers written in words; :mod:`.quotes` finds
quotations; :mod:`.context` says what the words around a number mean;
:mod:`.normalize` rewrites invisible characters, vulgar fractions and powers
of ten before the scanner sees them; :mod:`.sentences` cuts an answer into
sentences; :mod:`.claims` holds the claim type. Every reader produces value
keys of :mod:`relapse.grounding._values`; nothing here looks at the chunk
index.
"""
