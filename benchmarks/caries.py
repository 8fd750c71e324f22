"""The dental caries data: five dentists' readings of 3 869 bitewing radiographs (caries yes/no),
as the counts of the 32 response patterns (Espeland and Handelman 1989, Biometrics 45; the
standard example of latent-class models of diagnostic agreement).  Pattern ``i`` is the binary
expansion of ``i``, dentist 1 first."""

import numpy as np

#: Counts of the patterns 00000, 00001, ..., 11111.
CARIES_COUNTS = np.array(
    [1880, 789, 43, 75, 23, 63, 8, 22, 188, 191, 17, 67, 15, 85, 8, 56,
     22, 26, 6, 14, 1, 20, 2, 17, 2, 20, 6, 27, 3, 72, 1, 100]
)  # fmt: skip
#: The 32 patterns, one row each (n_patterns, 5).
CARIES_PATTERNS = (np.arange(32)[:, None] >> np.arange(4, -1, -1)) & 1
assert CARIES_COUNTS.sum() == 3869


def caries_table():
    """One row per radiograph, as a user's table would hold them (dentists d1..d5)."""
    return np.repeat(CARIES_PATTERNS, CARIES_COUNTS, axis=0).astype(np.int8)
