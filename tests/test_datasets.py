"""Shipped loaders (shapes of shared/datasets/README.md), the ARFF reader and long tables."""

from pathlib import Path

import numpy as np
import pytest

from mil import Bags
from mil.datasets import (
    DATASETS, from_frame, load_arff, load_csv, load_dataset, load_elephant, load_fox, load_musk1,
    load_musk2, load_tiger,
)

EXPECTED = {  # bags, positives, instances, features
    "musk1": (92, 47, 476, 166),
    "musk2": (102, 39, 6598, 166),
    "elephant": (200, 100, 1391, 230),
    "fox": (200, 100, 1320, 230),
    "tiger": (200, 100, 1220, 230),
}
LOADERS = {"musk1": load_musk1, "musk2": load_musk2, "elephant": load_elephant,
           "fox": load_fox, "tiger": load_tiger}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shipped_shapes(name):
    n_bags, n_pos, n_inst, n_feat = EXPECTED[name]
    d = LOADERS[name]()
    assert len(d.data) == n_bags and d.target.shape == (n_bags,)
    assert int(d.target.sum()) == n_pos and set(np.unique(d.target)) == {0, 1}
    assert sum(len(b) for b in d.data) == n_inst
    assert all(b.ndim == 2 and b.shape[1] == n_feat and b.dtype == np.float64 for b in d.data)
    assert d.folds.shape == (5, n_bags) and d.folds.min() == 0 and d.folds.max() == 9
    assert isinstance(d.bags, Bags) and d.bags.n_instances == n_inst
    assert name in d.DESCR.lower() and str(n_bags) in d.DESCR
    X, y = LOADERS[name](return_X_y=True)
    assert len(X) == n_bags and np.array_equal(y, d.target)


def test_as_bags_and_unknown_name():
    bags, y = load_dataset("musk1", return_X_y=True, as_bags=True)
    assert isinstance(bags, Bags) and bags.n_bags == 92
    with pytest.raises(ValueError, match="unknown data set 'musk3'"):
        load_dataset("musk3")
    assert set(DATASETS) == set(EXPECTED)


SHARED_ARFF = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "arff" / "musk1.arff"


def _write_musk1_arff(path):
    d = load_musk1()
    lines = ["% written by the test", "@relation musk1",
             "@attribute bag_id {" + ",".join(map(str, range(len(d.data)))) + "}",
             "@attribute bag relational"]
    lines += [f"  @attribute f{i + 1} numeric" for i in range(d.data[0].shape[1])]
    lines += ["@end bag", "@attribute class {0,1}", "", "@data"]
    for i, (bag, label) in enumerate(zip(d.data, d.target)):
        inner = "\\n".join(",".join(repr(float(v)) for v in row) for row in bag)
        lines.append(f'{i},"{inner}",{label}')
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def musk1_arff(tmp_path):
    return SHARED_ARFF if SHARED_ARFF.exists() else _write_musk1_arff(tmp_path / "musk1.arff")


def test_arff_matches_shipped_musk1(musk1_arff):
    ref = load_musk1()
    d = load_arff(musk1_arff)
    assert len(d.data) == 92 and d.feature_names[0] == "f1" and len(d.feature_names) == 166
    np.testing.assert_array_equal(d.target, ref.target)
    for a, b in zip(d.data, ref.data):
        np.testing.assert_array_equal(a, b)
    X, y = load_arff(musk1_arff, return_X_y=True)
    assert len(X) == 92


def test_arff_written_file_round_trips(tmp_path):
    d = load_arff(_write_musk1_arff(tmp_path / "m.arff"))
    ref = load_musk1()
    for a, b in zip(d.data, ref.data):
        np.testing.assert_array_equal(a, b)


def test_arff_missing_nominal_quotes_and_string_labels(tmp_path):
    p = tmp_path / "small.arff"
    p.write_text("""@RELATION 'toy set'
@ATTRIBUTE id {a,b}
@ATTRIBUTE bag RELATIONAL
  @ATTRIBUTE x REAL
  @ATTRIBUTE colour {red,green}
@END bag
@ATTRIBUTE class {no,yes}
@DATA
a,'1.5,red\\n?,green',yes
% a comment
b,"2,green",no
""")
    d = load_arff(p)
    assert d.relation == "toy set" and d.target.tolist() == ["yes", "no"]
    np.testing.assert_array_equal(d.data[0], [[1.5, 0.0], [np.nan, 1.0]])
    assert d.bag_ids.tolist() == ["a", "b"]


@pytest.mark.parametrize("text, message", [
    ("@relation r\n@attribute x numeric\n@data\n1\n", "not a multi-instance ARFF"),
    ("@relation r\n@attribute id {a}\n@attribute bag relational\n@attribute x numeric\n@end bag\n"
     "@attribute c {0,1}\n@data\na,\"1,2\",0\n", "has 2 values; 1 features"),
    ("@relation r\n@attribute id {a}\n@attribute bag relational\n@attribute x numeric\n@end bag\n"
     "@attribute c {0,1}\n@data\na,\"zz\",0\n", "'zz' is not a number"),
    ("@relation r\n@attribute id {a}\n@attribute bag relational\n@attribute x numeric\n@end bag\n"
     "@attribute c {0,1}\n", "no @data"),
    ("@relation r\n@attribute id {a}\n@attribute bag relational\n@attribute x numeric\n@end bag\n"
     "@attribute c {0,1}\n@data\na,\"1\",7\n", "not declared"),
    ("@relation r\n@attribute id {a}\n@attribute bag relational\n@attribute x numeric\n@end bag\n"
     "@attribute c {0,1}\n@data\na,\"\",0\n", "no instances"),
])
def test_arff_errors(tmp_path, text, message):
    p = tmp_path / "bad.arff"
    p.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_arff(p)


def test_from_frame_and_csv_agree(tmp_path):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"mol": [3, 1, 3, 1, 2], "y": [1, 0, 1, 0, 1],
                       "a": [0.1, 0.2, 0.3, 0.4, 0.5], "b": [1, 2, 3, 4, 5]})
    d = from_frame(df, bag="mol", label="y")
    assert d.bag_ids.tolist() == [1, 2, 3] and d.target.tolist() == [0, 1, 1]
    np.testing.assert_array_equal(d.data[0], [[0.2, 2], [0.4, 4]])
    np.testing.assert_array_equal(d.data[2], [[0.1, 1], [0.3, 3]])
    assert d.feature_names == ["a", "b"]
    path = tmp_path / "long.csv"
    df.to_csv(path, index=False)
    c = load_csv(path, bag="mol", label="y")
    for a, b in zip(c.data, d.data):
        np.testing.assert_array_equal(a, b)
    assert c.target.tolist() == d.target.tolist()
    X, y = from_frame(df, bag="mol", label="y", return_X_y=True)
    assert len(X) == 3


def test_long_table_errors(tmp_path):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"bag": [1, 1], "label": [0, 1], "x": [1.0, 2.0]})
    with pytest.raises(ValueError, match="bag 1 has rows with different values"):
        from_frame(df)
    with pytest.raises(ValueError, match="label column 'cls' is not in the table"):
        from_frame(df, label="cls")
    bad = tmp_path / "bad.csv"
    bad.write_text("bag,label,x\n1,0,abc\n")
    with pytest.raises(ValueError, match="'abc' is not a number"):
        load_csv(bad)
    bad.write_text("bag,label,x\n1,0\n")
    with pytest.raises(ValueError, match="line 2 has 2 fields"):
        load_csv(bad)


_ARFF_HEAD = ("@relation r\n@attribute id {a,b}\n@attribute bag relational\n  @attribute x numeric\n"
              "  @attribute y numeric\n@end bag\n@attribute class {no,yes}\n@data\n")


def test_arff_and_csv_skip_a_utf8_bom(tmp_path):
    p = tmp_path / "bom.arff"
    p.write_bytes(b"\xef\xbb\xbf" + (_ARFF_HEAD + 'a,"1,2\\n3,4",yes\nb,"5,6",no\n').encode())
    d = load_arff(p)
    assert d.target.tolist() == ["yes", "no"] and d.data[0].shape == (2, 2)
    c = tmp_path / "bom.csv"
    c.write_bytes(b"\xef\xbb\xbfbag,label,x\n1,0,0.5\n2,1,1.5\n")
    assert load_csv(c).target.tolist() == [0, 1]


def test_loaders_name_the_encoding(tmp_path):
    p = tmp_path / "latin.arff"
    p.write_bytes((_ARFF_HEAD.replace("@relation r", "@relation caf\xe9") + 'a,"1,2",yes\nb,"5,6",no\n')
                  .encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin\.arff is not valid utf-8 text .*encoding='latin-1'"):
        load_arff(p)
    assert load_arff(p, encoding="latin-1").relation == "caf\xe9"
    c = tmp_path / "latin.csv"
    c.write_bytes("bag,label,caf\xe9\n1,0,0.5\n2,1,1.5\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin\.csv is not valid utf-8 text"):
        load_csv(c)
    assert load_csv(c, encoding="latin-1").feature_names == ["caf\xe9"]


def test_arff_quoted_bag_over_several_lines(tmp_path):
    # Real line breaks inside the quoted bag, as the module docstring allows.
    p = tmp_path / "multi.arff"
    p.write_text(_ARFF_HEAD + 'a,"1,2\n3,4\n5,6",yes\n% comment\nb,"7,8",no\n')
    d = load_arff(p)
    np.testing.assert_array_equal(d.data[0], [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(d.data[1], [[7, 8]])
    assert d.target.tolist() == ["yes", "no"]
    p.write_text(_ARFF_HEAD + 'a,"1,2\n3,4,yes\n')
    with pytest.raises(ValueError, match="unterminated quote"):
        load_arff(p)


@pytest.mark.parametrize("cell", ["?", "", "nan", "NaN"])
def test_missing_label_is_an_error_naming_the_bag(tmp_path, cell):
    p = tmp_path / "nolabel.arff"
    p.write_text(_ARFF_HEAD.replace("{no,yes}", "{no,yes,nan,NaN}") + f'a,"1,2",yes\nb,"5,6",{cell}\n')
    with pytest.raises(ValueError, match="line 10: bag 'b' has no label"):
        load_arff(p)
    c = tmp_path / "nolabel.csv"
    c.write_text(f"bag,label,x\n1,0,0.5\n2,{cell},1.5\n2,{cell},2.5\n")
    with pytest.raises(ValueError, match="line 3: bag '2' has no label"):
        load_csv(c)


def test_from_frame_missing_label_names_the_bag():
    pd = pytest.importorskip("pandas")
    for missing in (np.nan, None, "nan", ""):
        df = pd.DataFrame({"bag": ["u", "u", "v"], "label": ["pos", "pos", missing], "x": [1.0, 2.0, 3.0]})
        with pytest.raises(ValueError, match="bag 'v' has no label"):
            from_frame(df)
    df = pd.DataFrame({"bag": [1, 2, 2], "label": [1.0, np.nan, np.nan], "x": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="bag 2 has no label"):
        from_frame(df)


def test_gdbt_early_stopping_on_few_bags_names_the_parameters():
    from mil.ensemble import GDBTMIClassifier
    from mil.utils.estimator_checks import make_toy_bags

    X, y = make_toy_bags(n_bags=10)
    with pytest.raises(ValueError, match=r"n_iter_no_change=3\) holds out validation_fraction=0\.1 of the "
                                         r"10 bags"):
        GDBTMIClassifier(n_iter_no_change=3, validation_fraction=0.1).fit(X, y)
    GDBTMIClassifier(n_estimators=3, n_iter_no_change=3, validation_fraction=0.4).fit(X, y)
