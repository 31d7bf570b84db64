"""Part B design runs: tuning cells and tuning seeds 0-7 ONLY (never evaluation seeds)."""
import json, sys, time
import numpy as np
from langchain_tepa.bench.grid import BASE, TUNING_SEEDS, tuning_cells, _method_summary
from langchain_tepa.bench.runner import RunSpec, run_many


def main():
    configs = json.loads(sys.argv[1])  # [[method, overrides], ...]
    cells = tuning_cells()
    assert all(s < 1000 for s in TUNING_SEEDS)
    specs, keys = [], []
    for method, ov in configs:
        for cell in cells:
            for seed in TUNING_SEEDS:
                specs.append(RunSpec("drift", {**BASE, **cell.config}, method, seed, overrides=dict(ov)))
                keys.append((method, json.dumps(ov, sort_keys=True), cell.name, cell.panel))
    t = time.time()
    outs = run_many(specs, workers=2, progress=False, description="exp")
    groups = {}
    for k, o in zip(keys, outs):
        groups.setdefault(k[:2], {}).setdefault((k[2], k[3]), []).append(o)
    for (method, ov), bycell in groups.items():
        succ, fr, cost = [], [], []
        panel = {}
        for (name, pan), runs in bycell.items():
            s = _method_summary(runs)
            succ.append(s["success"]); fr.append(s["false_revocations_per_task"]); cost.append(s["transition_cost_mean"])
            panel.setdefault(pan, []).append(s["success"])
        print(f"{method} {ov}: success {np.mean(succ):.4f} FR {np.mean(fr):.3f} cost {np.mean(cost):.2f} | "
              + " ".join(f"{p} {np.mean(v):.4f}" for p, v in panel.items())
              + " | cells " + " ".join(f"{x:.3f}" for x in succ), flush=True)
    print("seconds", round(time.time() - t, 1), flush=True)


if __name__ == "__main__":
    main()
