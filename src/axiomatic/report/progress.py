"""Re-export of :mod:`axiomatic._progress` (progress reporting lives below every layer)."""

from axiomatic._progress import progress_enabled, track

__all__ = ["progress_enabled", "track"]
