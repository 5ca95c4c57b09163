//! Finding or installing a Python 3.11 with NumPy 2.3.0. (Stub.)
