"""Weka's J48 from the command line, for the side-by-side studies (study_weka_*.py).

Weka (weka.jar, 3.9) must be given by path; nothing here is needed by mil itself.
"""

import subprocess

import numpy as np


def write_arff(path, Z, y, weight=None):
    """Rows `Z` with 0/1 class `y` (and optional instance weights) as a Weka ARFF file.

    A weight is written as ``{w}`` at the end of its data line, as ARFF allows.
    """
    with open(path, "w") as fh:
        fh.write("@relation rows\n")
        fh.writelines(f"@attribute f{j} numeric\n" for j in range(Z.shape[1]))
        fh.write("@attribute class {0,1}\n@data\n")
        for i, (row, label) in enumerate(zip(Z, y)):
            line = ",".join("?" if np.isnan(v) else repr(float(v)) for v in row) + f",{int(label)}"
            if weight is not None:
                line += f",{{{float(weight[i])!r}}}"
            fh.write(line + "\n")


def j48_proba(jar, options, train, test, decimals=9):
    """J48's class distribution (P(0), P(1)) for every row of the `test` ARFF.

    Read from Weka's CSV prediction output with `decimals` digits after the point.

    Returns
    -------
    proba : ndarray of shape (n_test_rows, 2)
    """
    out = subprocess.run(
        ["java", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-cp", jar,
         "weka.classifiers.trees.J48", *options, "-t", train, "-T", test, "-v", "-o",
         "-classifications",
         f"weka.classifiers.evaluation.output.prediction.CSV -distribution -decimals {decimals}"],
        capture_output=True, text=True, check=True).stdout
    proba = []
    for line in out.splitlines():
        fields = line.split(",")  # inst#,actual,predicted,error,P(0),P(1); '*' marks the prediction
        if len(fields) >= 6 and fields[0].strip().isdigit() and ":" in fields[2]:
            proba.append([float(f.replace("*", "")) for f in fields[-2:]])
    return np.array(proba).reshape(-1, 2)
