"""The package's version, in one place: ``snl_numeric.__version__``, and what batch results
record (read at each use, so a test can stand in for another version)."""

VERSION = "0.1.0"
