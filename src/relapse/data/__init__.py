"""Bundled RAGTruth QA items for ``relapse demo`` and the benchmarks (see README.md)."""
