"""Reading the files users have: per-bag feature files, long Parquet and CSV tables, leaked labels."""

import mmap
import warnings

import numpy as np
import pytest

from mil import Bags
from mil.datasets import LeakedLabelWarning, load_arff, load_bag_files, load_csv, load_musk1, load_parquet
from mil.datasets import _table

h5py = pytest.importorskip("h5py")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _bags(n_bags=6, n_features=4, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(int(rng.integers(2, 7)), n_features)).astype(dtype) for _ in range(n_bags)]


def _write(folder, bags, fmt="npy", names=None, key=None):
    folder.mkdir(parents=True, exist_ok=True)
    names = names or [f"slide_{i}" for i in range(len(bags))]
    for name, bag in zip(names, bags):
        path = folder / f"{name}.{fmt}"
        if fmt == "npy":
            np.save(path, bag)
        elif fmt == "npz":
            np.savez(path, **{key or "features": bag, "coords": np.zeros((len(bag), 2))})
        elif fmt == "h5":
            with h5py.File(path, "w") as f:
                f.create_dataset(key or "features", data=bag)
                f.create_dataset("coords", data=np.zeros((len(bag), 2), dtype=np.int64))
        else:
            pq.write_table(pa.table({f"f{j}": bag[:, j] for j in range(bag.shape[1])}), path)
    return names


def _labels(folder, names, labels, header="slide_id,label", name="labels.csv"):
    lines = ([header] if header else []) + [f"{n},{y}" for n, y in zip(names, labels)]
    (folder / name).write_text("\n".join(lines) + "\n")


def memory_mapped(arr):
    while arr is not None:
        if isinstance(arr, (np.memmap, mmap.mmap)):
            return True
        arr = getattr(arr, "base", None)
    return False


@pytest.mark.parametrize("fmt", ["npy", "npz", "h5", "parquet"])
def test_each_format_reads_the_same_bags(tmp_path, fmt):
    bags = _bags()
    names = _write(tmp_path / fmt, bags, fmt)
    _labels(tmp_path / fmt, names, [1, 0, 1, 0, 1, 0])
    d = load_bag_files(tmp_path / fmt)
    assert isinstance(d.bags, Bags) and d.bags.n_bags == 6 and d.data is d.bags
    assert d.bags.instances.dtype == np.float32
    assert d.bag_ids.tolist() == names and list(d.bags.ids) == names
    assert d.target.tolist() == [1, 0, 1, 0, 1, 0]
    for got, want in zip(d.bags, bags):
        np.testing.assert_array_equal(got, want)
    assert [p.split("/")[-1] for p in d.files] == [f"{n}.{fmt}" for n in names]
    if fmt == "parquet":
        assert list(d.bags.feature_names) == ["f0", "f1", "f2", "f3"]


def test_memmap_to_a_path_and_to_a_temporary_file(tmp_path):
    bags = _bags(dtype=np.float64)
    names = _write(tmp_path / "b", bags, "h5")
    _labels(tmp_path / "b", names, [0, 1] * 3)
    d = load_bag_files(tmp_path / "b", memmap=tmp_path / "inst.npy")
    assert memory_mapped(d.bags.instances) and not d.bags.instances.flags.writeable
    assert d.memmap == str(tmp_path / "inst.npy") and d.bags.instances.dtype == np.float64
    np.testing.assert_array_equal(np.load(tmp_path / "inst.npy"), np.concatenate(bags))
    t = load_bag_files(tmp_path / "b", memmap=True)
    assert memory_mapped(t.bags.instances) and t.memmap is None
    np.testing.assert_array_equal(t.bags.instances, np.concatenate(bags))
    f32 = load_bag_files(tmp_path / "b", dtype=np.float32)
    assert f32.bags.instances.dtype == np.float32


def test_labels_tables_with_and_without_header(tmp_path):
    folder = tmp_path / "b"
    names = _write(folder, _bags(4), "npy", names=["a", "b", "c", "d"])
    _labels(folder, names, ["tumor", "normal"] * 2, header=None)
    assert load_bag_files(folder).target.tolist() == ["tumor", "normal"] * 2
    # CLAM's table: case_id, slide_id, label; ids with the slide's suffix
    (folder / "labels.csv").unlink()
    table = tmp_path / "clam.csv"
    table.write_text("case_id,slide_id,label\n" + "".join(f"p{i},{n}.svs,{y}\n" for i, (n, y)
                                                          in enumerate(zip(names, [1.5, 2.0, 0.25, 3.0]))))
    d = load_bag_files(folder, labels=table)
    assert d.target.dtype == np.float64 and d.target.tolist() == [1.5, 2.0, 0.25, 3.0]
    d = load_bag_files(folder, labels={"a": 1, "b": 0, "c": 1, "d": 0})
    assert d.target.tolist() == [1, 0, 1, 0]
    d = load_bag_files(folder, labels=False)
    assert d.target is None and d.bags.n_bags == 4
    table.write_text("bag,y,weight\na,1,3\nb,0,3\nc,1,3\nd,0,3\n")
    assert load_bag_files(folder, labels=table).target.tolist() == [1, 0, 1, 0]
    assert load_bag_files(folder, labels=table, label_column="weight").target.tolist() == [3] * 4


def test_numbered_files_sort_by_number_and_clam_subfolder(tmp_path):
    folder = tmp_path / "features"
    _write(folder / "h5_files", _bags(3), "h5", names=["10", "2", "1"])
    _labels(folder, ["1", "2", "10"], [0, 1, 0], header="bag,label")
    d = load_bag_files(folder)
    assert d.bag_ids.tolist() == [1, 2, 10] and d.target.tolist() == [0, 1, 0]


def test_errors_name_the_file_and_the_problem(tmp_path):
    folder = tmp_path / "b"
    bags = _bags(3)
    names = _write(folder, bags, "npy")
    _labels(folder, names, [1, 0, 1])
    np.save(folder / "slide_9.npy", np.zeros((3, 5), dtype=np.float32))
    with pytest.raises(ValueError, match=r"slide_9\.npy has 5 features; .*slide_0\.npy has 4"):
        load_bag_files(folder)
    np.save(folder / "slide_9.npy", np.zeros(4, dtype=np.float32))
    with pytest.raises(ValueError, match=r"slide_9\.npy holds a 1-D array of shape \(4,\); a bag is a 2-D"):
        load_bag_files(folder)
    np.save(folder / "slide_9.npy", np.zeros((0, 4), dtype=np.float32))
    with pytest.raises(ValueError, match=r"slide_9\.npy holds an empty bag"):
        load_bag_files(folder)
    np.save(folder / "slide_9.npy", np.zeros((2, 4), dtype=np.float32))
    with pytest.raises(ValueError, match=r"labels\.csv gives no label to 1 of the 4 bags .*'slide_9'"):
        load_bag_files(folder)
    (folder / "slide_9.npy").unlink()
    _labels(folder, names + ["slide_7", "slide_8"], [1, 0, 1, 0, 0])
    with pytest.raises(ValueError, match=r"labels 2 bags with no file in .*'slide_7', 'slide_8'"):
        load_bag_files(folder)
    _labels(folder, names + ["slide_0"], [1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"gives bag 'slide_0' two labels"):
        load_bag_files(folder)
    (folder / "labels.csv").unlink()
    with pytest.raises(ValueError, match=r"has no labels\.csv .*labels="):
        load_bag_files(folder)
    (tmp_path / "labels.xlsx").write_bytes(b"PK\x03\x04")
    with pytest.raises(ValueError, match=r"labels\.xlsx is an Excel file; labels= reads a CSV table"):
        load_bag_files(folder, labels=tmp_path / "labels.xlsx")
    with pytest.raises(ValueError, match=r"is a file; load_bag_files reads a folder"):
        load_bag_files(folder / "slide_0.npy")


def test_a_folder_without_bag_files_says_what_it_holds(tmp_path):
    folder = tmp_path / "pt"
    folder.mkdir()
    for i in range(3):
        (folder / f"s{i}.pt").write_bytes(b"")
    (folder / "meta.json").write_text("{}")
    with pytest.raises(ValueError, match=r"holds no per-bag files \(.*\.npy.*\); it holds 1 JSON file, "
                                         r"3 PyTorch files; save each bag's tensor as \.npy"):
        load_bag_files(folder)


def test_h5_and_npz_keys(tmp_path):
    folder = tmp_path / "b"
    names = _write(folder, _bags(2), "h5", key="feats")
    _labels(folder, names, [0, 1])
    with pytest.raises(ValueError, match=r"has no dataset 'features' \(it holds \['coords', 'feats'\]\)"):
        load_bag_files(folder)
    assert load_bag_files(folder, key="feats").bags.n_bags == 2
    npz = tmp_path / "z"
    names = _write(npz, _bags(2), "npz", key="emb")
    _labels(npz, names, [0, 1])
    with pytest.raises(ValueError, match=r"holds the arrays \['emb', 'coords'\]|holds the arrays \['coords', 'emb'\]"):
        load_bag_files(npz)
    assert load_bag_files(npz, key="emb").bags.n_features == 4


# -- one long Parquet table ---------------------------------------------------------------------

def _long_table(ids, labels, X):
    return pa.table({"bag": ids, "label": labels, **{f"x{j}": X[:, j] for j in range(X.shape[1])}})


def test_parquet_long_table_unsorted_ids_and_memmap(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 3))
    ids = ["c", "a", "b", "a", "c", "b", "a", "c", "c"]
    y = {"a": 1, "b": 0, "c": 1}
    path = tmp_path / "t.parquet"
    pq.write_table(_long_table(ids, [y[i] for i in ids], X), path, row_group_size=4)
    for memmap in (None, tmp_path / "m.npy"):
        d = load_parquet(path, memmap=memmap)
        assert d.bag_ids.tolist() == ["a", "b", "c"] and d.target.tolist() == [1, 0, 1]
        assert d.feature_names == ["x0", "x1", "x2"]
        np.testing.assert_array_equal(d.bags[0], X[[1, 3, 6]])
        np.testing.assert_array_equal(d.bags[2], X[[0, 4, 7, 8]])
        assert memory_mapped(d.bags.instances) == (memmap is not None)
    bad = _long_table(ids, [1, 1, 0, 0, 1, 0, 1, 1, 1], X)
    pq.write_table(bad, path)
    with pytest.raises(ValueError, match=r"bag 'a' has rows with different values in the label column"):
        load_parquet(path)


def test_parquet_vector_column_and_errors(tmp_path):
    X = np.arange(12.0).reshape(4, 3)
    path = tmp_path / "v.parquet"
    pq.write_table(pa.table({"slide": [2, 2, 1, 1], "y": [0.5, 0.5, 1.5, 1.5],
                             "embedding": [list(r) for r in X]}), path)
    d = load_parquet(path, bag="slide", label="y", dtype=np.float32)
    assert d.bag_ids.tolist() == [1, 2] and d.target.tolist() == [1.5, 0.5]
    assert d.bags.instances.dtype == np.float32 and d.feature_names is None
    np.testing.assert_array_equal(d.bags[0], X[2:])
    with pytest.raises(ValueError, match=r"no bag column 'bag'; its columns: \['slide', 'y', 'embedding'\]"):
        load_parquet(path)
    with pytest.raises(ValueError, match=r"is a CSV|is a JSON file; load_parquet reads"):
        (tmp_path / "t.json").write_text("{}")
        load_parquet(tmp_path / "t.json")


# -- load_csv on pyarrow's parser, the row-by-row reader as the reference -----------------------

def _csv_text(rng, n_bags=12):
    lines = ["bag,label,a,b"]
    for b in range(n_bags):
        for _ in range(int(rng.integers(1, 4))):
            x = rng.normal(size=2)
            cells = [f"{x[0]:.6f}", "?" if rng.random() < 0.1 else f"{x[1]:.6f}"]
            lines.append(f"id{(b * 7) % n_bags},{'pos' if b % 2 else 'neg'},{cells[0]},{cells[1]}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", [0, 1])
def test_csv_parsers_agree(tmp_path, monkeypatch, seed):
    path = tmp_path / "t.csv"
    path.write_text(_csv_text(np.random.default_rng(seed)))
    fast = load_csv(path)
    monkeypatch.setattr(_table, "_read_with_arrow", lambda *a: None)
    slow = load_csv(path)
    assert fast.bag_ids.tolist() == slow.bag_ids.tolist()
    assert fast.target.tolist() == slow.target.tolist()
    np.testing.assert_array_equal(fast.bags.instances, slow.bags.instances)
    np.testing.assert_array_equal(fast.bags.offsets, slow.bags.offsets)


def test_csv_float_labels_are_a_regression(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("bag,label,x\n1,0.5,1\n1,0.5,2\n2,3.25,3\n")
    d = load_csv(path)
    assert d.target.dtype == np.float64 and d.target.tolist() == [0.5, 3.25]


@pytest.mark.parametrize("suffix, kind", [(".json", "JSON"), (".xlsx", "Excel"), (".parquet", "Parquet")])
def test_csv_reader_names_other_formats(tmp_path, suffix, kind):
    path = tmp_path / f"data{suffix}"
    path.write_bytes(b"{}")
    with pytest.raises(ValueError, match=rf"data\{suffix} is an? {kind} file; load_csv reads a CSV text file.*"
                                         r"mil\.datasets reads long CSV tables"):
        load_csv(path)


def test_csv_header_of_a_wrong_format_is_cut_short(tmp_path):
    path = tmp_path / "blob.csv"
    path.write_text(",".join(f"c{i}" for i in range(500)) + "\n")
    with pytest.raises(ValueError) as exc:
        load_csv(path)
    assert "(500 columns)" in str(exc.value) and len(str(exc.value)) < 400


# -- leaked labels ------------------------------------------------------------------------------

def _musk1_with_leak(tmp_path, coding):
    d = load_musk1()
    rows = []
    for bag_id, (bag, y) in enumerate(zip(d.data, d.target)):
        for inst in bag:
            rows.append([bag_id, y, *inst[:5], coding[y]])
    path = tmp_path / "musk1_leak.csv"
    header = "bag,label," + ",".join(f"f{i}" for i in range(1, 6)) + ",class"
    path.write_text(header + "\n" + "\n".join(",".join(str(v) for v in r) for r in rows) + "\n")
    return path


@pytest.mark.parametrize("coding", [{0: 0, 1: 1}, {0: 2, 1: 7}])
def test_csv_warns_for_a_column_copying_the_label(tmp_path, coding):
    path = _musk1_with_leak(tmp_path, coding)
    with pytest.warns(LeakedLabelWarning, match=r"musk1_leak\.csv: feature column 'class' equals the bag label"):
        load_csv(path)


def test_no_warning_on_clean_data_and_on_a_feature_constant_everywhere(tmp_path):
    d = load_musk1()
    lines = ["bag,label,f1,const"] + [f"{b},{y},{inst[0]},1.0" for b, (bag, y) in enumerate(zip(d.data, d.target))
                                      for inst in bag]
    path = tmp_path / "clean.csv"
    path.write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", LeakedLabelWarning)
        load_csv(path)


def test_bag_files_and_parquet_warn_for_a_leaked_label(tmp_path):
    rng = np.random.default_rng(0)
    y = np.arange(12) % 2
    bags = [np.column_stack([rng.normal(size=(3, 2)), np.full(3, float(label))]) for label in y]
    names = _write(tmp_path / "b", bags, "npy")
    _labels(tmp_path / "b", names, y)
    with pytest.warns(LeakedLabelWarning, match=r"feature column 2 equals the bag label"):
        load_bag_files(tmp_path / "b")
    ids = np.repeat(np.arange(12), 3)
    path = tmp_path / "t.parquet"
    pq.write_table(_long_table(ids, y[ids], np.concatenate(bags)), path)
    with pytest.warns(LeakedLabelWarning, match=r"feature column 'x2' equals the bag label"):
        load_parquet(path)


def test_arff_warns_for_a_leaked_label(tmp_path):
    d = load_musk1()
    lines = ["@relation leak", "@attribute bag_id {" + ",".join(map(str, range(92))) + "}",
             "@attribute bag relational", "  @attribute f1 numeric", "  @attribute is_musk numeric",
             "@end bag", "@attribute class {0,1}", "@data"]
    for i, (bag, y) in enumerate(zip(d.data, d.target)):
        lines.append(f'{i},"' + "\\n".join(f"{row[0]},{y}" for row in bag) + f'",{y}')
    path = tmp_path / "leak.arff"
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(LeakedLabelWarning, match=r"feature column 'is_musk' equals the bag label"):
        load_arff(path)


def test_mil_evaluate_says_a_leaked_label_in_one_line(tmp_path, capsys):
    from mil.cli import main

    rng = np.random.default_rng(0)
    lines = ["bag,label,x1,x2,class"]
    for b in range(30):
        for _ in range(3):
            x = rng.normal(size=2)
            lines.append(f"b{b},{b % 2},{x[0]:.3f},{x[1]:.3f},{b % 2}")
    path = tmp_path / "leak.csv"
    path.write_text("\n".join(lines) + "\n")
    assert main(["evaluate", "--dataset", str(path), "--model", "c45-mi", "--folds", "3"]) == 0
    err = capsys.readouterr().err
    assert "mil: warning: " in err and "feature column 'class' equals the bag label on every instance" in err
    assert "LeakedLabelWarning" not in err
