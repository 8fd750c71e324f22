"""``bayescal.fit_bayes`` on the caries data, as a user's script would call it (issue 15).

Run by ``benchmarks/first_fit.py`` in a fresh process, with ``BAYESCAL_CACHE_DIR`` set by the
caller; prints the seconds from its first line to the end of the fit, where the sampler came
from (``compiled``, ``disk`` or ``memory``), and the mean of the draws of ``a`` (to compare
runs bit for bit).  With ``--repeat`` it fits twice and reports the second fit.
"""

import time

START = time.perf_counter()

import sys  # noqa: E402

import numpy as np  # noqa: E402
from caries import caries_table  # noqa: E402

import bayescal as bc  # noqa: E402

rows = caries_table()
data = bc.AnnotatedScores(
    np.full(rows.shape[0], 0.5), rows, annotator_names=[f"dentist {j}" for j in range(1, 6)]
)
options = {"num_chains": 2, "num_warmup": 1000, "num_samples": 1000, "progress": False}
fit = bc.fit_bayes(data, **options)
if "--repeat" in sys.argv:
    START = time.perf_counter()
    fit = bc.fit_bayes(data, **options)
seconds = time.perf_counter() - START
a = fit.chains["a"]
print(
    f"first fit {seconds:.3f} from {fit.run['compiled_from']}"
    f" draws {a.tobytes().hex()[:16]} divergences {int(fit.diagnostics['divergences'].iloc[0])}"
    f" max_rhat {fit.diagnostics['r_hat'].max():.4f} min_ess {fit.diagnostics['ess_bulk'].min():.0f}"
)
