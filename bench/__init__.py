"""`make bench`: Kiln measured against the naive way (everything on the main thread), side by side."""
