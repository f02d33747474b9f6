"""Running a compiled recipe: the frame directives build on, the runner, the session, files, progress, counts.

`frame` is what every compiler writes to (one projection per directive, error and filter marks kept in
the plan); `runner` compiles a recipe through `directives.spark.compilers` and returns the lazy result
with its counts; `session` starts a quiet local session; `files` and `line_formats` read and write inputs
and outputs; `progress` reports Spark's progress; `perturb` runs a recipe on perturbed samples for the
lineage verifier. For `wrangler run` and pipeline exports: `stages` runs a line of Wrangler stages (with
`precondition`, `output_schema` and the on-error strategies), `output_files` publishes outputs only when a run
passes (and writes single files), `error_reasons` groups error rows into reasons, `jvm_stderr` keeps the JVM's
start-up notice off stderr. What leans on Spark's private internals is in `directives.spark.internals`.
"""
