# RAMP's agent stages (paper section 3.1), fanned out over {model} x {variant} x {subset} x
# {shard} (a part of the run's tasks, common.smk): reflection (e0) and test generation once per
# shard, then one job per repair iteration t = 1..K, which waits only for its own shard's t-1.
# Model stages batch every open task's prompt of the shard into one call, so one (GPU) job serves
# many tasks. The other methods of Table 1 (the baselines) run each task's whole loop in one job
# per shard, run_method. gather_shards and gather_iteration join the shards' tables into the
# run's one table per stage. Each model stage declares what decides its answers (common.smk,
# ramp.provenance): its prompt templates as inputs, its variant, model and study fields as
# params.


wildcard_constraints:
    model=r"[^/]+",
    variant=r"[^/]+",
    t=r"[1-9][0-9]*",
    shard=r"[1-9][0-9]*-of-[1-9][0-9]*",


rule reflect:
    input:
        tasks=rules.sample_tasks.output.tasks,
        prompts=stage_prompts("reflect"),
    output:
        reflections=shard_pattern("reflections"),
    log:
        f"{RUN_LOGS}/shards/{{shard}}/reflect.log",
    benchmark:
        BENCHMARKS["reflect"]
    wildcard_constraints:
        variant=STAGED_VARIANTS,
    conda:
        "../../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        model_stage=1,
    params:
        **stage_params("reflect"),
    message:
        "Feedback Integrator: initial reflections ({wildcards.model}, {wildcards.variant}, {wildcards.subset}, shard {wildcards.shard})"
    script:
        "../scripts/reflect.py"


rule design_tests:
    input:
        tasks=rules.sample_tasks.output.tasks,
        prompts=stage_prompts("design_tests"),
    output:
        tests=shard_pattern("tests"),
    log:
        f"{RUN_LOGS}/shards/{{shard}}/design_tests.log",
    benchmark:
        BENCHMARKS["design_tests"]
    wildcard_constraints:
        variant=STAGED_VARIANTS,
    conda:
        "../../envs/models.yaml"
    threads: MODEL_THREADS  # the executor runs as many workers (common.smk)
    resources:
        model_stage=1,
    params:
        **stage_params("design_tests"),
    message:
        "Test Designer: guiding tests ({wildcards.model}, {wildcards.variant}, {wildcards.subset}, shard {wildcards.shard})"
    script:
        "../scripts/design_tests.py"


rule repair_iteration:
    input:
        unpack(iteration_inputs),
    output:
        attempts=shard_pattern("iteration"),
    log:
        f"{RUN_LOGS}/shards/{{shard}}/iteration_{{t}}.log",
    benchmark:
        BENCHMARKS["repair_iteration"]
    wildcard_constraints:
        variant=STAGED_VARIANTS,
    conda:
        "../../envs/models.yaml"
    threads: MODEL_THREADS  # the executor runs as many workers (common.smk)
    resources:
        model_stage=1,
    params:
        **stage_params("repair_iteration"),
    message:
        "Repair iteration {wildcards.t} ({wildcards.model}, {wildcards.variant}, {wildcards.subset}, shard {wildcards.shard})"
    script:
        "../scripts/repair_iteration.py"


rule collect_attempts:
    input:
        attempts_inputs,
    output:
        attempts=run_file("attempts"),
    log:
        f"{RUN_LOGS}/collect.log",
    conda:
        "../../envs/executor.yaml"
    message:
        "Collecting the iterations of ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    script:
        "../scripts/collect_attempts.py"


rule run_method:
    input:
        tasks=rules.sample_tasks.output.tasks,
        prompts=stage_prompts("run_method"),
    output:
        attempts=shard_pattern("method_attempts"),
        reflections=shard_pattern("reflections"),
        tests=shard_pattern("tests"),
    log:
        f"{RUN_LOGS}/shards/{{shard}}/run_method.log",
    benchmark:
        BENCHMARKS["run_method"]
    wildcard_constraints:
        variant=ONE_JOB_VARIANTS,
    conda:
        "../../envs/models.yaml"
    threads: MODEL_THREADS  # the executor runs as many workers (common.smk)
    resources:
        model_stage=1,
    params:
        **stage_params("run_method"),
    message:
        "Method {wildcards.variant}: every task's repair loop ({wildcards.model}, {wildcards.subset}, shard {wildcards.shard})"
    script:
        "../scripts/run_method.py"


rule gather_shards:
    input:
        tasks=rules.sample_tasks.output.tasks,
        parts=lambda w: shard_parts(w.table)(w),
    output:
        f"{RUN}/{{table}}.parquet",
    log:
        f"{RUN_LOGS}/gather_{{table}}.log",
    wildcard_constraints:
        table=_one_of(FLAT_SHARDED),
    conda:
        "../../envs/executor.yaml"
    message:
        "Gathering the shards' {wildcards.table} ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    script:
        "../scripts/gather_shards.py"


rule gather_iteration:
    input:
        tasks=rules.sample_tasks.output.tasks,
        parts=shard_parts("iteration"),
    output:
        run_file("iteration"),
    log:
        f"{RUN_LOGS}/gather_iteration_{{t}}.log",
    conda:
        "../../envs/executor.yaml"
    message:
        "Gathering the shards' iteration {wildcards.t} ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    script:
        "../scripts/gather_shards.py"
