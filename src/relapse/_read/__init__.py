"""
What relapse reads from your code: answers, token usage, streams, chunks and replies.

Everything here is duck typed: no SDK is imported. ``replies`` assembles the
readers one call uses (:class:`relapse._read.replies.Readers`); the other
modules each read one thing.
"""
