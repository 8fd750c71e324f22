"""The registry of models: each declared once, named in one spelling and accepted in both."""

import ast
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import bayescal as bc
from bayescal.app.model_choice import MODEL_CHOICES, model_data
from bayescal.bayes.registry import MODELS, channel_model, choose_model, model_names

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPELLINGS = {name for model in MODELS.values() for name in (model.name, model.spelling)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_model_is_found_in_both_spellings_and_printed_in_one(name):
    model = channel_model(name)
    assert channel_model(model.spelling) is model and model.name == name
    assert "-" not in model.name and "_" not in model.spelling


def test_an_unknown_model_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r"^model must be one of 'dawid_skene', .*; saw 'rasch'$"):
        channel_model("rasch")
    with pytest.raises(ValueError, match=r"^model must be one of .*; saw 3$"):
        channel_model(3)
    with pytest.raises(ValueError, match=r"saw 'hui_walter_by_group'$"):
        channel_model("hui_walter_by_group", in_analysis=True)


def test_what_applies_to_each_model_is_what_its_fit_does():
    assert model_names(dependent_pairs=True) == (
        "dawid_skene",
        "hui_walter",
        "hierarchical_dawid_skene",
    )
    assert [m.name for m in MODELS.values() if m.on_responses] == ["hierarchical_dawid_skene"]
    assert [m.name for m in MODELS.values() if not m.folded] == ["hierarchical_dawid_skene"]
    assert [m.name for m in MODELS.values() if not m.sensitivity] == ["hui_walter_by_group"]
    assert MODEL_CHOICES == (
        "auto",
        "dawid_skene",
        "hui_walter",
        "hierarchical_dawid_skene",
        "shared_difficulty",
    )
    # one program serves every pattern-count model: the design carries the structure
    programs = {m.program for m in MODELS.values() if not m.on_responses}
    assert programs == {"latent_class_model"}


def test_the_registry_imports_neither_jax_nor_numpyro():
    code = (
        "import sys; from bayescal.bayes.registry import MODELS; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'numpyro', 'arviz')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_auto_chooses_by_the_data_and_says_why():
    three = bc.toy_data(300, seed=1).data
    model, why = choose_model(three)
    assert model.name == "dawid_skene" and why.startswith("auto: 3 annotators")
    two = bc.AnnotatedScores(three.scores, three.annotations[:, :2])
    chosen = model_data(two)
    assert chosen.name == "hui_walter" and chosen.data.groups is not None
    assert chosen.why.endswith("; 5 equal-width groups were formed")
    assert choose_model(three, "shared-difficulty")[0].name == "shared_difficulty"


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # short chains
def test_fit_bayes_and_analyse_take_both_spellings():
    data = bc.toy_data(600, seed=2).data
    settings = {"num_chains": 1, "num_warmup": 50, "num_samples": 50, "progress": False}
    hyphen = bc.fit_bayes(data, model="dawid-skene", **settings)
    underscore = bc.fit_bayes(data, model="dawid_skene", **settings)
    assert hyphen.model == underscore.model == "dawid_skene"
    assert np.array_equal(hyphen.draws().a, underscore.draws().a)
    assert model_data(data, model="dawid_skene").name == model_data(data, model="dawid-skene").name


def _string_constants(node) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return {e.value for e in node.elts if isinstance(e, ast.Constant)}
    return set()


def test_no_module_but_the_registry_compares_model_names_or_keys_on_them():
    """A model's identity is asked of the registry (``channel_model(name).grouped``, a fit's
    ``spec``), never tested by comparing its name: no ``==`` or ``in`` with a model's name, no
    list of names and no dictionary keyed by them outside bayescal/bayes/registry.py."""
    offenders = []
    for path in sorted((ROOT / "bayescal").rglob("*.py")) + sorted((ROOT / "models").rglob("*.py")):
        if path.name == "registry.py":
            continue
        tree = ast.parse(path.read_text())
        exported = {  # a module's __all__ names its functions, some named as the models
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and any(getattr(target, "id", None) == "__all__" for target in node.targets)
        }
        for node in ast.walk(tree):
            named = set()
            if isinstance(node, ast.Compare):
                for side in (node.left, *node.comparators):
                    named |= _string_constants(side) & SPELLINGS
            elif isinstance(node, ast.Dict):
                for key in node.keys:
                    named |= _string_constants(key) & SPELLINGS if key is not None else set()
            elif isinstance(node, ast.Tuple | ast.List | ast.Set) and id(node) not in exported:
                named |= _string_constants(node) & SPELLINGS
            if named:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {sorted(named)}")
    assert offenders == []
