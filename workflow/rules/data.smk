# Data stage: the xCodeEval JSONL -> one typed task table -> one table per subset.


wildcard_constraints:
    subset=SUBSET_NAMES,


# Without the data set, the first job builds it from xCodeEval on the Hugging Face hub (README:
# Getting the data). The rule exists only then, so that no run (--forceall included) ever
# deletes or rebuilds a data set one has.
if not os.path.exists(config["data"]["jsonl"]):

    rule fetch_data:
        output:
            jsonl=config["data"]["jsonl"],
        log:
            f"{DATA_LOGS}/data/fetch_data.log",
        conda:
            "../../envs/executor.yaml"
        params:
            # The rows of the study's language (data.fetch.language, when set, says the same).
            fetch={
                "language": LANGUAGE.key,
                **lookup(dpath="data/fetch", within=config, default={}),
            },
            manifests=f"{workflow.basedir}/data/manifests",
        message:
            "Building {output.jsonl} from xCodeEval's apr validation split on the Hugging Face hub"
        script:
            "../scripts/fetch_data.py"


rule load_tasks:
    input:
        jsonl=dataset_input(config["data"]["jsonl"]),
    output:
        tasks=f"{TASKS}/tasks.parquet",
        errors=f"{TASKS}/load_errors.parquet",
    log:
        f"{DATA_LOGS}/data/load_tasks.log",
    conda:
        "../../envs/executor.yaml"
    params:
        default_memory_mb=lookup(dpath="executor/memory_mb", within=config, default=256),
    message:
        "Loading the xCodeEval APR tasks from {input.jsonl}"
    script:
        "../scripts/load_tasks.py"


rule sample_tasks:
    input:
        tasks=rules.load_tasks.output.tasks,
        # Named subsets are committed id lists (data/subsets/NAME.txt); `all` and N come from the
        # seeded order.
        ids=subset_ids,
    output:
        tasks=f"{TASKS}/{{subset}}.parquet",
    log:
        f"{DATA_LOGS}/data/sample_{{subset}}.log",
    conda:
        "../../envs/executor.yaml"
    params:
        seed=lookup(dpath="sampling/seed", within=config, default=2024),
    message:
        "Selecting the task subset '{wildcards.subset}'"
    script:
        "../scripts/sample_tasks.py"
