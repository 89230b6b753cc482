"""Loading items from files, with stable ids and a content version."""

from .loader import Dataset, load_dataset

__all__ = ["Dataset", "load_dataset"]
