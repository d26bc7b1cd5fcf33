"""Write the small generated files of random/ (keys with many missing values, weights, households).

Run from this folder: python make_random.py  (seeded; the files are committed).
"""

from pathlib import Path

import numpy as np
import pandas as pd

out = Path(__file__).resolve().parent / "random"
out.mkdir(exist_ok=True)
rng = np.random.default_rng(20240612)
for t in range(12):
    n = int(rng.integers(8, 160))
    m = 1 + t % 5
    keys = rng.integers(1, int(rng.integers(2, 6)), size=(n, m)).astype(float)
    keys[rng.random((n, m)) < (0.05 + 0.25 * rng.random())] = np.nan
    keys[rng.random(n) < 0.05] = np.nan  # a few records with every key missing
    df = pd.DataFrame(keys, columns=[f"k{j}" for j in range(m)]).astype("Int64")
    df["w"] = np.round(1 + 30 * rng.random(n), 2)
    df["hh"] = np.sort(rng.integers(1, max(2, n // 3), n))
    df.to_csv(out / f"random{t:02d}.csv", index=False, na_rep="")
