"""What the browser tests look at, recorded into a real store through the real recorders.

* ``MyNamespace``: seed 000's worked example exactly as the seed draws it (HR File + Person File ->
  Employee Data, field ID from Employee_Name, Dept_Name and SSN only), with a directive tree stored
  for ``ID``, plus one INDIRECT edge (a filter on ``SSN``) so both edge styles are on screen.
* ``hr``: the same example made by two real recipes (``HRFile`` -> ``HRStaged`` -> ``EmployeeData``),
  recorded the way ``wrangler run --store`` records them; the pipeline runs twice, and the second
  run renames ``Salary_USD`` to ``Salary_in_USD`` (the run diff must show it).
* ``hr`` also audits seed 000's ``ID``: ``AuditIDs`` reads ``MyNamespace``'s ``EmployeeData.ID`` into
  ``hr``'s ``Audit``, so a token for ``hr`` alone sees lineage cut at the namespace boundary.
* ``wide``: one source field feeding 500 output fields, for the layout measurement.
* ``hostile``: names that are markup and hold ``/`` and ``?``: shown as text, never run.

Times are minutes before now, so the default range (last week) shows everything; ``hr`` has the
newest run, so ``/`` opens it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import directives
from bench.examples import NAMESPACE, employee_destination, employee_operations
from lineage.model import DatasetRef, Destination, FieldOperation, RunInfo
from lineage.recorder import LineageRecorder
from lineage.runs import RecipeRunInfo, record_recipe_run
from lineage.store import SQLiteLineageStore

HR = "hr"
WIDE = "wide"
HOSTILE = "hostile"
HOSTILE_DATASET = 'a/b?<img src=x onerror="window.pwned=1">'
HOSTILE_FIELD = '"><script>window.pwned=2</script>'
HOSTILE_SOURCE = "<b>bold</b>#frag"
WIDE_FIELDS = 500

STAGE = """\
split-to-columns :body ','
drop :body
rename :body_1 :Employee_Name
rename :body_2 :Dept_Name
rename :body_3 :Salary
rename :body_4 :SSN
"""
STAGED = ["Employee_Name", "Dept_Name", "Salary", "SSN"]

EMPLOYEE = """\
merge :Employee_Name :Dept_Name :key '-'
merge :key :SSN :ID '-'
hash :ID 'SHA-256'
drop :key
set-column :Salary_USD exp:{Salary * 1.1}
drop :Salary
validate-standard :SSN hl7-fhir-r4
"""
EMPLOYEE_RENAMED = EMPLOYEE + "rename :Salary_USD :Salary_in_USD\n"

ID_TREE = {
    "column": "ID", "label": "ADD", "type": "DIRECT", "subtype": "TRANSFORMATION",
    "directive": {"index": 5, "line": 5, "name": "GenerateID", "text": "GenerateID: Generate unique Employee Id"},
    "upstream": [
        {"column": "Employee_Name", "label": "SOURCE", "directive": None, "upstream": []},
        {"column": "Dept_Name", "label": "SOURCE", "directive": None, "upstream": []},
        {"column": "SSN", "label": "SOURCE", "directive": None, "upstream": []},
    ],
}


@dataclass(frozen=True)
class Scenario:
    now: int
    store_path: Path


def seed_000_operations() -> list[FieldOperation]:
    """Seed 000's operations, with a row filter on SSN feeding every output (an INDIRECT edge)."""
    operations = employee_operations()
    check = FieldOperation.builder("CheckSSN").description("Keep rows whose SSN is valid").input("SSN") \
        .output("SSN").with_property("type", "INDIRECT").with_property("subtype", "FILTER").build()
    at = next(i for i, op in enumerate(operations) if op.name == "PersonParse") + 1
    return [*operations[:at], check, *operations[at:]]


def record(store_path: Path, now: int | None = None) -> Scenario:
    now = now or int(time.time())
    with SQLiteLineageStore(store_path) as store:
        run = RunInfo(namespace=NAMESPACE, program="EmployeePipeline", run_id="run-7", start=now - 3000, end=now - 2400)
        LineageRecorder(run, store).record(employee_destination(), seed_000_operations(),
                                           column_history={"ID": ID_TREE})

        def recipe_run(text: str, schema: list[str], info: RecipeRunInfo, columns: list[str] | None = None) -> None:
            record_recipe_run(store, directives.parse(text, schema), info, columns)

        stage = RecipeRunInfo(namespace=HR, source_name="HRFile", destination_name="HRStaged", run_id="stage-1",
                              start=now - 1800, end=now - 1790, program="StageHR",
                              source_properties={"inputDir": "/data/2017/hr", "regex": "*.csv"})
        recipe_run(STAGE, ["body"], stage, STAGED)
        for run_id, text, start in (("emp-1", EMPLOYEE, now - 1200), ("emp-2", EMPLOYEE_RENAMED, now - 600)):
            info = RecipeRunInfo(namespace=HR, source_name="HRStaged", destination_name="EmployeeData", run_id=run_id,
                                 start=start, end=start + 30, program="BuildEmployees",
                                 destination_properties={"rowid": "ID", "path": "/warehouse/employees"})
            recipe_run(text, STAGED, info)

        employee = DatasetRef(namespace=NAMESPACE, name="EmployeeData")
        audit = [FieldOperation.builder("ReadIDs").description("Read the IDs to audit").dataset_input(employee, "ID")
                 .output("ID").build()]
        LineageRecorder(RunInfo(namespace=HR, program="AuditIDs", run_id="audit-1", start=now - 900, end=now - 890),
                        store).record(Destination(name="Audit", fields=("ID",)), audit)

        source = DatasetRef(name="events")
        operations = [FieldOperation.builder("read").description("Read events").dataset_input(source, "key")
                      .output("key").build()]
        operations += [FieldOperation.builder(f"derive_{i}").description(f"Derive f{i} from key")
                       .input("key").output(f"f{i}").build() for i in range(WIDE_FIELDS)]
        destination = Destination(name="wide_out", fields=tuple(f"f{i}" for i in range(WIDE_FIELDS)))
        LineageRecorder(RunInfo(namespace=WIDE, program="Widen", run_id="wide-1", start=now - 3600, end=now - 3590),
                        store).record(destination, operations)

        hostile = [FieldOperation.builder("copy").description("<i>copy</i>").dataset_input(
            DatasetRef(name=HOSTILE_SOURCE), HOSTILE_FIELD).output(HOSTILE_FIELD).build()]
        LineageRecorder(RunInfo(namespace=HOSTILE, program="<script>x</script>", run_id="h/1?x", start=now - 3700,
                                end=now - 3690), store).record(
            Destination(name=HOSTILE_DATASET, fields=(HOSTILE_FIELD,)), hostile)
    return Scenario(now=now, store_path=store_path)
