# Scoring with the hidden tests (paper step 5) and the oracle analysis of the generated tests
# (Table 3). Only these rules see hidden tests; they run programs of the study's language, never
# a model.


rule score_hidden:
    input:
        tasks=f"{TASKS}/{{subset}}.parquet",
        attempts=run_file("attempts"),
    output:
        hidden=run_file("hidden"),
        hidden_attempts=run_file("hidden_attempts"),
    log:
        f"{RUN_LOGS}/score_hidden.log",
    benchmark:
        BENCHMARKS["score_hidden"]
    conda:
        "../../envs/executor.yaml"
    threads: EXECUTOR_WORKERS
    params:
        stop_at_first_failure=lookup(
            dpath="scoring/stop_at_first_failure", within=config, default=False
        ),
    message:
        "Hidden validation of every attempt ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    script:
        "../scripts/score_hidden.py"


# Every program the run wrote, not only the one per iteration the attempts keep: RAMP+'s other
# candidates run here on the hidden tests; every other method's are its attempts, copied from
# score_hidden (ramp.analysis.candidates). Says whether generation or selection is the ceiling.
rule score_candidates:
    input:
        tasks=f"{TASKS}/{{subset}}.parquet",
        attempts=run_file("attempts"),
        hidden_attempts=rules.score_hidden.output.hidden_attempts,
    output:
        candidates=run_file("candidates"),
    log:
        f"{RUN_LOGS}/score_candidates.log",
    conda:
        "../../envs/executor.yaml"
    threads: EXECUTOR_WORKERS
    params:
        stop_at_first_failure=lookup(
            dpath="scoring/stop_at_first_failure", within=config, default=False
        ),
        verdict_cache=lookup(dpath="scoring/verdict_cache", within=config, default=""),
    message:
        "Hidden validation of every candidate ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    script:
        "../scripts/score_candidates.py"


rule score_run:
    input:
        tasks=f"{TASKS}/{{subset}}.parquet",
        attempts=run_file("attempts"),
        reflections=run_file("reflections"),
        tests=run_file("tests"),
        hidden=rules.score_hidden.output.hidden,
        hidden_attempts=rules.score_hidden.output.hidden_attempts,
        bug_runs=f"{BUGS}/{{subset}}/hidden_runs.parquet",
    output:
        scores=run_file("scores"),
        task_scores=run_file("task_scores"),
        transitions=run_file("transitions"),
        costs=run_file("costs"),
    log:
        f"{RUN_LOGS}/score_run.log",
    conda:
        "../../envs/executor.yaml"
    params:
        iterations=ITERATIONS,
        pass_at_k=lookup(dpath="scoring/pass_at_k", within=config, default=[1]),
        early_stopping=lookup(dpath="scoring/early_stopping", within=config, default=True),
        hidden_feedback=hidden_feedback,
    message:
        "Scores, transitions and costs ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    script:
        "../scripts/score_run.py"


# Each problem's oracle is its reference program (config oracle.references), checked on the
# hidden tests first, else a program found passing them in the runs.
rule oracle:
    input:
        unpack(oracle_references),
        tasks=f"{TASKS}/{{subset}}.parquet",
        attempts=run_files("attempts"),
        hidden_attempts=run_files("hidden_attempts"),
        tests=run_files("tests"),
    output:
        oracle=f"{RESULTS}/analysis/{{subset}}/oracle.parquet",
        programs=f"{RESULTS}/analysis/{{subset}}/oracle_programs.parquet",
    log:
        f"{LOGS}/analysis/{{subset}}/oracle.log",
    benchmark:
        BENCHMARKS["oracle"]
    conda:
        "../../envs/executor.yaml"
    threads: EXECUTOR_WORKERS
    params:
        iterations=ITERATIONS,
        references=REFERENCES,
    message:
        "Generated tests vs oracle programs, every run of '{wildcards.subset}' (Table 3)"
    script:
        "../scripts/oracle.py"
