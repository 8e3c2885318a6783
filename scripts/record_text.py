"""Reading a committed or fresh record in either form: plain JSON as the experiments write it,
or gzip-compressed (<name>.gz) as the evidence store keeps it. Every Python reader of records
(validate-records, reproduce, evidence, the tests) goes through here."""
import gzip
import pathlib


def read_record_text(path):
    """The text of a record file; gzip-compressed content is recognised by its magic bytes."""
    data = pathlib.Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def record_file_in(folder, name):
    """folder/name, or folder/name.gz where only the compressed form exists; None when neither."""
    folder = pathlib.Path(folder)
    for p in (folder / name, folder / (name + ".gz")):
        if p.is_file():
            return p
    return None
