"""Seed 000's worked example as operations: HR File + Person File -> Employee Data.

Used by the tests (lineage, server, browser) and the benchmarks so every layer checks the same case; test and
benchmark data, so it lives here beside the benchmarks rather than in the `lineage` package it exercises:

* the Person reader outputs ``body``; the Person parser turns it into ``SSN``;
* the HR reader outputs another ``body``; the HR parser turns it into ``Employee_Name``,
  ``Dept_Name``, ``Salary`` and ``Start_Date`` (one operation, so all four share its inputs);
* ``GenerateID`` builds ``ID`` from ``Employee_Name``, ``Dept_Name`` and ``SSN`` — and **not** from
  ``Salary``, which only feeds ``Salary_USD`` through ``ConvertSalary``.

Field inputs name no origin here on purpose: each resolves to the most recent earlier producer,
which is how the two ``body`` fields stay apart.
"""

from __future__ import annotations

from lineage.model import DatasetRef, Destination, FieldOperation, RunInfo

NAMESPACE = "MyNamespace"
HR_FILE = DatasetRef(name="HRFile", properties={"inputDir": "/data/2017/hr", "regex": "*.csv"})
PERSON_FILE = DatasetRef(name="PersonFile", properties={"inputDir": "/data/2017/person", "regex": "*.csv"})
EMPLOYEE_FIELDS = ("ID", "Name", "Department", "Salary_USD", "JoiningDate")


def employee_operations() -> list[FieldOperation]:
    op = FieldOperation.builder
    return [
        op("PersonRead")
        .description("Read Person file.")
        .dataset_input(PERSON_FILE, "PersonRecord")
        .output("body")
        .with_property("stage", "Person File Reader")
        .build(),
        op("PersonParse")
        .description("Parse the body field")
        .input("body")
        .output("SSN")
        .with_property("stage", "Person File Parser")
        .build(),
        op("HRRead")
        .description("Read HR file.")
        .dataset_input(HR_FILE, "HRRecord")
        .output("body")
        .with_property("stage", "HR File Reader")
        .build(),
        op("HRParse")
        .description("Parse the body field")
        .input("body")
        .outputs("Employee_Name", "Dept_Name", "Salary", "Start_Date")
        .with_property("stage", "HR File Parser")
        .build(),
        op("GenerateID")
        .description("Generate unique Employee Id")
        .inputs("Employee_Name", "Dept_Name", "SSN")
        .output("ID")
        .with_property("stage", "Field Normalizer")
        .build(),
        op("ConvertSalary").description("Salary to USD").input("Salary").output("Salary_USD").build(),
        op("RenameName")
        .description("Renamed column 'Employee_Name' to 'Name'")
        .input("Employee_Name")
        .output("Name")
        .build(),
        op("RenameDept")
        .description("Renamed column 'Dept_Name' to 'Department'")
        .input("Dept_Name")
        .output("Department")
        .build(),
        op("RenameStart")
        .description("Renamed column 'Start_Date' to 'JoiningDate'")
        .input("Start_Date")
        .output("JoiningDate")
        .build(),
    ]


def employee_destination() -> Destination:
    return Destination(
        name="EmployeeData", description="Employee Data", properties={"rowid": "ID"}, fields=EMPLOYEE_FIELDS
    )


def employee_run(run_id: str = "run1", start: int = 1_500_000_000, program: str = "EmployeePipeline") -> RunInfo:
    return RunInfo(namespace=NAMESPACE, program=program, run_id=run_id, start=start, end=start + 60)
