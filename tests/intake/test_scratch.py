from app.services.intake import load as load_mod
from tests.intake.conftest import tasks_of


def test_nul(renewals, write, load):
    p = write("Id,Name\nA,x\x00y\nB,ok\n")
    try:
        print(load(renewals, p))
    except Exception as e:
        print("EXC", type(e), e)
    print(tasks_of(renewals))

def test_batches(renewals, write, load, monkeypatch):
    p = write("Id,Name\nA,1\nB,2\nC,3\nA,4\n")
    print(load(renewals, p, dry_run=True))
    print(load(renewals, p))
    monkeypatch.setattr(load_mod, "BATCH", 2)
    p2 = write("Id,Name\nD,1\nE,2\nF,3\nD,4\n", name="b.csv")
    print(load(renewals, p2, dry_run=True))
    print(load(renewals, p2))

def test_sup(renewals, write, load):
    p = write("Id,Name,nextEarliestWorkTime\nA,x,\u00b2\nB,ok,\n")
    try:
        print(load(renewals, p))
    except Exception as e:
        print("EXC", type(e), e)
