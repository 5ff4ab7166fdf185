"""The private layer: validation, successor-table kernels, the solver family.

Modules here import only NumPy, SciPy and Numba (and each other; tqdm for
the progress bars, pandas and pyarrow on demand), never a module above them.
What two public modules share lives here under a plain name.
"""
