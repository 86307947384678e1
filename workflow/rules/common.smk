# Helpers shared by the rule files: what `all` builds, and where artifacts live.

SUBSETS = [str(s) for s in config["subsets"]]


def all_targets():
    targets = []
    targets += expand("results/bugs/{subset}/summary.md", subset=SUBSETS)
    return targets
