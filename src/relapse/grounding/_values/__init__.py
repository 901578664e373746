"""
How claims compare: by value, never by spelling.

The lowest stage of the default check, importing nothing else of it but the
text helpers. :mod:`.keys` turns a quantity (magnitude, sign, scale, unit)
into the keys support is decided on; :mod:`.calendar` gives the keys a date
needs or provides; :mod:`.units` knows the unit a number is written with and
the conversions the check computes.
"""
