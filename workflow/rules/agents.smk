# RAMP's agent stages (paper section 3.1), fanned out over {model} x {variant} x {subset}:
# reflection (e0) and test generation once per run, then one job per repair iteration t = 1..K.
# Model stages batch every open task's prompt into one call, so one (GPU) job serves many tasks.
# The other methods of Table 1 (the baselines) run each task's whole loop in one job, run_method.


wildcard_constraints:
    model=r"[^/]+",
    variant=r"[^/]+",
    t=r"[1-9][0-9]*",


rule reflect:
    wildcard_constraints:
        variant=STAGED_VARIANTS,
    input:
        tasks=rules.sample_tasks.output.tasks,
    output:
        reflections=run_file("reflections"),
    log:
        f"{RUN_LOGS}/reflect.log",
    benchmark:
        BENCHMARKS["reflect"]
    message:
        "Feedback Integrator: initial reflections ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    threads: MODEL_THREADS
    resources:
        model_stage=1,
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/reflect.py"


rule design_tests:
    wildcard_constraints:
        variant=STAGED_VARIANTS,
    input:
        tasks=rules.sample_tasks.output.tasks,
    output:
        tests=run_file("tests"),
    log:
        f"{RUN_LOGS}/design_tests.log",
    benchmark:
        BENCHMARKS["design_tests"]
    message:
        "Test Designer: guiding tests ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    threads: MODEL_THREADS  # the executor runs as many workers (common.smk)
    resources:
        model_stage=1,
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/design_tests.py"


rule repair_iteration:
    wildcard_constraints:
        variant=STAGED_VARIANTS,
    input:
        unpack(iteration_inputs),
    output:
        attempts=run_file("iteration"),
    log:
        f"{RUN_LOGS}/iteration_{{t}}.log",
    benchmark:
        BENCHMARKS["repair_iteration"]
    message:
        "Repair iteration {wildcards.t} ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    threads: MODEL_THREADS  # the executor runs as many workers (common.smk)
    resources:
        model_stage=1,
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/repair_iteration.py"


rule collect_attempts:
    input:
        attempts_inputs,
    output:
        attempts=run_file("attempts"),
    log:
        f"{RUN_LOGS}/collect.log",
    message:
        "Collecting the iterations of ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    conda:
        "../../envs/executor.yaml"
    script:
        "../scripts/collect_attempts.py"


rule run_method:
    wildcard_constraints:
        variant=ONE_JOB_VARIANTS,
    input:
        tasks=rules.sample_tasks.output.tasks,
    output:
        attempts=run_file("method_attempts"),
        reflections=run_file("reflections"),
        tests=run_file("tests"),
    log:
        f"{RUN_LOGS}/run_method.log",
    benchmark:
        BENCHMARKS["run_method"]
    message:
        "Method {wildcards.variant}: every task's repair loop ({wildcards.model}, {wildcards.subset})"
    threads: MODEL_THREADS  # the executor runs as many workers (common.smk)
    resources:
        model_stage=1,
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/run_method.py"
