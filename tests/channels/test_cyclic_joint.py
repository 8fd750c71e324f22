"""Dependent pairs that close a cycle (issue 38, item 4c): the pairwise log-linear joint of
bayescal.channels.cyclic_joint, its coordinates, its likelihood with missing answers, its EM,
its draws and where it is refused."""

from itertools import product

import numpy as np
import pytest
from scipy import optimize, special, stats

import bayescal as bc
from bayescal.channels import cyclic_joint
from bayescal.channels.dependence import dependent_pairs, every_dependent_pair, mask_combinations
from bayescal.channels.pattern_likelihood import (
    LinkedSet,
    class_log_likelihoods,
    covariance_from_share,
    interaction_from_share,
)
from bayescal.correction.calibration_test import replicate_labels
from bayescal.simulate import simulate_log_linear

TRIANGLE = np.array([[0, 1], [1, 2], [0, 2]])
#: a square with one diagonal: two cycles sharing a pair
SQUARE = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
#: every pair of five annotators: ten pairs, 2^5 patterns
COMPLETE = np.array([[j, k] for j in range(5) for k in range(j + 1, 5)])
NAMES = tuple(f"a{j}" for j in range(5))
CYCLE = [("a0", "a1"), ("a1", "a2"), ("a0", "a2")]
CHANNELS = bc.Channels(
    np.array([0.1, 0.15, 0.2, 0.1, 0.25]), np.array([0.85, 0.8, 0.9, 0.75, 0.88])
)
#: the triangle's conditional log odds ratios given Y = 0 (first column) and Y = 1
STRENGTH = np.array([[1.5, 1.0], [1.0, 2.0], [0.5, 1.5]])


def _log_linear(x, h, interaction, ends):
    """``exp(h . x + sum_e J_e x_j x_k)`` of one pattern, written out (not normalised)."""
    return np.exp(h @ x + sum(J * x[j] * x[k] for J, (j, k) in zip(interaction, ends)))


@pytest.mark.parametrize("ends", [TRIANGLE, SQUARE, COMPLETE], ids=["triangle", "square", "K5"])
def test_the_mixed_coordinates_keep_the_channels_and_invert_to_the_interactions(ends):
    """For any channels and interactions (up to |J| = 8, an odds ratio of 3 000) the joint
    sums to 1, has exactly the channels asked for, is log-linear in the pairs (its log odds
    ratio of each pair given the others is J), and the covariances it has give back the same
    joint (natural_parameters inverts covariance_of_interaction)."""
    rng = np.random.default_rng(0)
    m = int(ends.max()) + 1
    x = cyclic_joint.states(m)
    for _ in range(30):
        p = rng.uniform(0.03, 0.97, m)
        interaction = rng.uniform(-8, 8, len(ends))
        log_joint = cyclic_joint.joint_of_interaction(p, interaction, ends)
        joint = np.exp(log_joint)
        assert joint.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(joint @ x, p, atol=1e-10)
        # the pair's conditional log odds ratio, read off four patterns that differ in it
        j, k = ends[0]
        corner = {
            (u, w): np.flatnonzero((x[:, j] == u) & (x[:, k] == w) & (x.sum(1) == u + w))[0]
            for u in (0, 1)
            for w in (0, 1)
        }
        ratio = log_joint[corner[1, 1]] + log_joint[corner[0, 0]]
        ratio -= log_joint[corner[1, 0]] + log_joint[corner[0, 1]]
        assert ratio == pytest.approx(interaction[0], abs=1e-9)
        covariance = cyclic_joint.covariance_of_interaction(p, interaction, ends)
        _, back = cyclic_joint.natural_parameters(p, covariance, ends)
        np.testing.assert_allclose(back, interaction, atol=1e-7)
        np.testing.assert_allclose(
            cyclic_joint.joint_of_covariance(p, covariance, ends), log_joint, atol=1e-9
        )


def test_on_a_tree_the_log_linear_joint_is_the_junction_tree_product():
    """The two models are one family: the log-linear joint of a tree's channels and
    covariances is the product of its pairs' tables that trees are fitted with."""
    tree = np.array([[0, 1], [1, 2], [1, 3]])
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.05, 0.4, 4), rng.uniform(0.6, 0.95, 4)
    covariance = covariance_from_share(rng.uniform(0.1, 0.9, (3, 2)), a, b, tree)
    rows = mask_combinations(np.ones(4, bool))
    product_form = class_log_likelihoods(
        a, b, (rows == 1) * 1.0, (rows == 0) * 1.0, pairs=tree, covariance=covariance
    )
    for y, rates in enumerate((a, b)):
        log_linear = cyclic_joint.cyclic_log_factor(
            (rows == 1) * 1.0,
            (rows == 0) * 1.0,
            np.arange(4),
            tree,
            rates,
            np,
            covariance=covariance[:, y],
        )
        independent = ((rows == 1) * np.log(rates) + (rows == 0) * np.log1p(-rates)).sum(1)
        np.testing.assert_allclose(log_linear + independent, product_form[y], atol=1e-10)


@pytest.mark.parametrize("mask", [(1, 1, 1, 1), (1, 0, 1, 1), (0, 1, 0, 1), (1, 0, 0, 0)])
def test_missing_answers_of_a_cycle_are_summed_out_exactly(mask):
    """Each cell of observed answers gets the written-out sum of the joint over its missing
    answers (a square with a diagonal, each missing member still linking the others): every
    cell sums to 1 and every observed channel is kept; in the programs' coordinates
    (interaction given) the same numbers."""
    rng = np.random.default_rng(2)
    p = rng.uniform(0.05, 0.95, 4)
    interaction = rng.uniform(-3, 3, len(SQUARE))
    covariance = cyclic_joint.covariance_of_interaction(p, interaction, SQUARE)
    h, _ = cyclic_joint.natural_parameters(p, covariance, SQUARE)
    rows = mask_combinations(np.asarray(mask, bool))
    positive, negative = (rows == 1) * 1.0, (rows == 0) * 1.0
    factor = cyclic_joint.cyclic_log_factor(
        positive, negative, np.arange(4), SQUARE, p, np, covariance=covariance
    )
    log_p = factor + (positive * np.log(p) + negative * np.log1p(-p)).sum(1)
    total = sum(_log_linear(np.array(x), h, interaction, SQUARE) for x in product((0, 1), repeat=4))
    missing = np.flatnonzero(~np.asarray(mask, bool))
    for row, value in zip(rows, np.exp(log_p)):
        written_out = 0.0
        for filled in product((0, 1), repeat=missing.size):
            x = row.copy()
            x[missing] = filled
            written_out += _log_linear(x, h, interaction, SQUARE) / total
        assert value == pytest.approx(written_out, rel=1e-9)
    assert np.exp(log_p).sum() == pytest.approx(1.0, abs=1e-12)
    for j in np.flatnonzero(mask):
        assert np.exp(log_p)[rows[:, j] == 1].sum() == pytest.approx(p[j], abs=1e-10)
    by_interaction = cyclic_joint.cyclic_log_factor(
        positive, negative, np.arange(4), SQUARE, p, np, interaction=interaction
    )
    np.testing.assert_allclose(by_interaction, factor, atol=1e-9)


def test_the_programs_gradients_are_the_implicit_functions():
    """Inside a program the Newton steps run on stopped gradients and the last step carries
    them: the gradient of the covariances and of a missing-answer likelihood equals central
    differences, and the values equal NumPy's."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    import bayescal.models  # noqa: F401  (sets the program's solve)

    p0 = np.array([[0.2, 0.3, 0.6], [0.7, 0.8, 0.9]])
    j0 = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 0.5]])
    rows = mask_combinations(np.array([1, 0, 1], bool))
    positive, negative = (rows == 1) * 1.0, (rows == 0) * 1.0
    weights = np.arange(1.0, 7.0).reshape(2, 3)

    def value(p, interaction, xp):
        covariance = cyclic_joint.covariance_of_interaction(p, interaction, TRIANGLE, xp)
        factor = cyclic_joint.cyclic_log_factor(
            positive, negative, np.arange(3), TRIANGLE, p[1], xp, interaction=interaction[1]
        )
        return (covariance * weights).sum() + (factor * np.arange(1.0, 5.0)).sum()

    with jax.enable_x64(True):
        gradient = jax.jit(jax.grad(lambda p, i: value(p, i, jnp), argnums=(0, 1)))(
            jnp.asarray(p0), jnp.asarray(j0)
        )
        assert float(jax.jit(lambda p, i: value(p, i, jnp))(p0, j0)) == pytest.approx(
            value(p0, j0, np), abs=1e-12
        )
    step = 1e-6
    for argument, analytic in zip((p0, j0), gradient):
        numeric = np.zeros_like(argument)
        for index in np.ndindex(argument.shape):
            up, down = argument.copy(), argument.copy()
            up[index] += step
            down[index] -= step
            pair = (up, j0) if argument is p0 else (p0, up)
            minus = (down, j0) if argument is p0 else (p0, down)
            numeric[index] = (value(*pair, np) - value(*minus, np)) / (2 * step)
        np.testing.assert_allclose(np.asarray(analytic), numeric, atol=1e-6)


def test_a_program_solves_the_fields_without_lapack():
    """A compiled sampler that called LAPACK crashed when loaded from the sampler cache (a
    segmentation fault): the program's solve is written out, no custom call."""
    jax = pytest.importorskip("jax")
    import bayescal.models  # noqa: F401  (sets the program's solve)

    with jax.enable_x64(True):
        lowered = jax.jit(
            lambda p, j: cyclic_joint.covariance_of_interaction(p, j, TRIANGLE, jax.numpy)
        ).lower(np.full(3, 0.3), np.ones(3))
    assert "custom_call" not in lowered.as_text()


def test_the_programs_shares_set_a_logistic_interaction_on_cycles_only():
    """A share t of a pair in a cycle is J = 2 logit t; a pair outside keeps the share of its
    bounds."""
    index = np.vstack([TRIANGLE, [[3, 4]]])
    share = np.array([[0.5, 0.9], [0.2, 0.5], [0.7, 0.1], [0.5, 0.5]])
    a, b = CHANNELS.a, CHANNELS.b
    interaction = interaction_from_share(share, index)
    np.testing.assert_allclose(interaction[:3], 2.0 * special.logit(share[:3]))
    covariance = covariance_from_share(share, a, b, index)
    for y, rates in enumerate((a, b)):
        expected = cyclic_joint.covariance_of_interaction(rates[:3], interaction[:3, y], TRIANGLE)
        np.testing.assert_allclose(covariance[:3, y], expected, atol=1e-12)
    lone = covariance_from_share(share[3:], a, b, index[3:])
    np.testing.assert_allclose(covariance[3], lone[0])
    assert interaction_from_share(share[3:], index[3:]) is None


def test_a_cycle_is_accepted_and_the_join_is_still_bounded():
    assert dependent_pairs(CYCLE, NAMES).names == tuple(CYCLE)
    names = [f"j{i}" for i in range(7)]
    ring = [(names[i], names[(i + 1) % 7]) for i in range(7)]
    with pytest.raises(ValueError, match="join 7 annotators; at most 6"):
        dependent_pairs(ring, names)


def _triangle_data(n, seed):
    return simulate_log_linear(n, CHANNELS, TRIANGLE.tolist(), STRENGTH, seed=seed)


def _true_covariance():
    return np.stack(
        [
            cyclic_joint.covariance_of_interaction(rates[:3], STRENGTH[:, y], TRIANGLE)
            for y, rates in enumerate((CHANNELS.a, CHANNELS.b))
        ],
        axis=-1,
    )


def test_the_simulator_keeps_the_channels_and_the_pairs_tables():
    """Each class's answer rates and pair covariances over 200 000 items within four standard
    errors (about 0.004 for a covariance, against covariances of 0.013-0.044)."""
    sim = _triangle_data(200_000, seed=3)
    labels, answers = sim.labels, sim.data.annotations
    covariance = _true_covariance()
    for y, rates in enumerate((CHANNELS.a, CHANNELS.b)):
        of_class = answers[labels == y]
        n = len(of_class)
        np.testing.assert_allclose(
            of_class.mean(0), rates, atol=4 * np.sqrt(rates * (1 - rates) / n).max()
        )
        for d, (j, k) in enumerate(TRIANGLE):
            product_ = (of_class[:, j] - rates[j]) * (of_class[:, k] - rates[k])
            assert product_.mean() == pytest.approx(
                covariance[d, y], abs=4 * product_.std() / np.sqrt(n)
            )


@pytest.mark.parametrize(
    ("pairs", "interaction", "message"),
    [
        ([], 1.0, "at least one dependent pair"),
        (None, 1.0, "at least one dependent pair"),
        ([(0, 0)], 1.0, "two different annotator indices below 5"),
        ([(0, 1), (1, 0)], 1.0, "distinct pairs"),
        ([(0, 7)], 1.0, "below 5"),
        ([(0, 1, 2)], 1.0, "pairs of annotator indices"),
        ([(0, 1), (1, 2)], np.ones(3), r"\(D,\) or \(D, 2\) for D = 2"),
        ([(0, 1)], np.nan, "must be finite"),
        ([(0, 1)], np.inf, "must be finite; saw inf"),
        ([(0, 1)], "a", "interaction must be numbers; saw 'a'"),
    ],
)
def test_the_simulator_refuses_bad_pairs_and_interactions(pairs, interaction, message):
    with pytest.raises(ValueError, match=message):
        simulate_log_linear(50, CHANNELS, pairs, interaction)


def test_the_simulator_refuses_an_edge_channel_in_a_pair_and_too_many_joined():
    """A pair's member needs rates inside (0, 1); an annotator outside the pairs may sit on
    an edge.  At most six annotators joined."""
    edge = bc.Channels(np.array([0.1, 0.0, 0.2, 0.15]), np.array([0.9, 0.8, 1.0, 0.85]))
    with pytest.raises(ValueError, match=r"annotator 1 is in a dependent pair.*saw a = 0.0"):
        simulate_log_linear(50, edge, (0, 1), 1.0)
    sim = simulate_log_linear(400, edge, (0, 3), 1.0, seed=1)
    answers = sim.data.annotations
    assert (answers[sim.labels == 0, 1] == 0).all()  # a = 0: never a 1 given Y = 0
    assert (answers[sim.labels == 1, 2] == 1).all()  # b = 1: always a 1 given Y = 1
    chain = [(j, j + 1) for j in range(7)]
    eight = bc.Channels(np.full(8, 0.2), np.full(8, 0.8))
    with pytest.raises(ValueError, match=r"at most 6 annotators .* saw 8 joined"):
        simulate_log_linear(50, eight, chain, 1.0)


def test_the_fields_converge_on_symmetric_designs_in_numpy_and_in_a_program():
    """Equal channels and one interaction for every pair (what the simulator's one-value
    ``interaction`` gives) made a capped full Newton step cycle between two points; the line
    search converges, to 1e-12 in NumPy and in a program's solve (at most 30 steps), on a
    triangle and on six annotators joined by all 15 pairs, up to |J| = 8."""
    jax = pytest.importorskip("jax")
    import bayescal.models  # noqa: F401  (sets the program's solve)

    six = np.array([[j, k] for j in range(6) for k in range(j + 1, 6)])
    grid = [(p, J) for p in (0.05, 0.2, 0.5, 0.65, 0.95) for J in (-8.0, -3.0, 2.5, 4.0, 8.0)]
    for ends in (TRIANGLE, six):
        m = int(ends.max()) + 1
        x = cyclic_joint.states(m)
        with jax.enable_x64(True):
            program = jax.jit(
                lambda p, j, ends=ends: cyclic_joint.joint_of_interaction(p, j, ends, jax.numpy)
            )
            for p, J in grid:
                rates, strength = np.full(m, p), np.full(len(ends), J)
                for log_joint in (
                    cyclic_joint.joint_of_interaction(rates, strength, ends),
                    np.asarray(program(rates, strength)),
                ):
                    np.testing.assert_allclose(np.exp(log_joint) @ x, rates, atol=1e-12)


def test_a_float32_program_solves_the_fields_or_says_nan():
    """A program a user runs without ``jax.enable_x64`` solves in float32, where rounding
    leaves misses of about 1e-6: its solve stops at float32's rule and keeps float32; on the
    symmetric grids of a triangle and of six annotators joined by all 15 pairs its joints
    match float64's to 1e-4, and the six's most extreme designs (|J| = 8, whose patterns'
    probabilities underflow in float32) give NaN, never a wrong joint."""
    jax = pytest.importorskip("jax")
    import bayescal.models  # noqa: F401  (sets the program's solve)

    six = np.array([[j, k] for j in range(6) for k in range(j + 1, 6)])
    outcomes = []
    for ends in (TRIANGLE, six):
        m = int(ends.max()) + 1
        program = jax.jit(
            lambda p, j, ends=ends: cyclic_joint.joint_of_interaction(p, j, ends, jax.numpy)
        )
        for p in (0.05, 0.2, 0.5, 0.65, 0.95):
            for J in (-8.0, -3.0, 2.5, 4.0, 8.0):
                rates, strength = np.full(m, p, np.float32), np.full(len(ends), J, np.float32)
                log_joint = program(rates, strength)
                assert log_joint.dtype == np.float32
                if np.isnan(log_joint).any():
                    assert np.isnan(log_joint).all()
                    outcomes.append((m, J, "nan"))
                    continue
                expected = cyclic_joint.joint_of_interaction(
                    rates.astype(np.float64), strength.astype(np.float64), ends
                )
                np.testing.assert_allclose(np.exp(log_joint), np.exp(expected), atol=1e-4)
                outcomes.append((m, J, "solved"))
    assert {(m, J) for m, J, outcome in outcomes if outcome == "nan"} == {(6, 8.0)}


def test_a_half_precision_program_is_refused_by_name():
    jax = pytest.importorskip("jax")
    import bayescal.models  # noqa: F401  (sets the program's solve)

    for dtype in (jax.numpy.float16, jax.numpy.bfloat16):
        rates, strength = jax.numpy.full(3, 0.2, dtype), jax.numpy.full(3, 2.5, dtype)
        with pytest.raises(
            TypeError,
            match=rf"^free: the fields are solved in float64 or float32; saw {dtype.__name__}$",
        ):
            cyclic_joint.joint_of_interaction(rates, strength, TRIANGLE, jax.numpy)


def test_numpys_full_step_first_is_the_programs_line_search(monkeypatch):
    """NumPy tries the full Newton step first and searches only the rows where it is not
    enough; a program tries every length at once.  Along the solves of the symmetric grid on
    six annotators (where a few steps must backtrack) the two take the same steps."""
    jax = pytest.importorskip("jax")
    six = np.array([[j, k] for j in range(6) for k in range(j + 1, 6)])
    statistics = cyclic_joint.sufficient_statistics(six, 6)
    grid = [(p, J) for p in (0.05, 0.2, 0.5, 0.95) for J in (-8.0, -3.0, 2.5, 8.0)]
    rates = np.array([np.full(6, p) for p, _ in grid])
    fixed = np.array([np.full(len(six), J) for _, J in grid])
    free = np.log(rates) - np.log1p(-rates)  # the independent start
    searched = []
    line_search = cyclic_joint._line_search

    def counted(statistics, shares, xp, *rows):
        found = line_search(statistics, shares, xp, *rows)
        if xp is np and shares.size == 1:
            searched.append(int((~found[1]).sum()))
        return found

    monkeypatch.setattr(cyclic_joint, "_line_search", counted)
    with jax.enable_x64(True):
        for _ in range(12):
            step, missed = cyclic_joint.newton_step(free, fixed, rates, statistics, np)
            program = cyclic_joint.newton_step(
                *(jax.numpy.asarray(a) for a in (free, fixed, rates)), statistics, jax.numpy
            )
            # the two solve the Newton system differently (LAPACK, Cholesky written out): a
            # few 1e-9 apart on the grid's extremes; another step length would be 1e-3 apart
            np.testing.assert_allclose(step, np.asarray(program[0]), rtol=1e-7, atol=1e-7)
            np.testing.assert_allclose(missed, np.asarray(program[1]), rtol=1e-7, atol=1e-12)
            free = step
    assert 0 < sum(searched) < len(grid) * len(searched) / 4  # a few rows searched, not all
    # one target for every row of a batch: broadcast, as a program's step broadcasts it
    start = np.log(rates) - np.log1p(-rates)
    shared, _ = cyclic_joint.newton_step(start, fixed, rates[0], statistics, np)
    each, _ = cyclic_joint.newton_step(
        start, fixed, np.tile(rates[0], (len(grid), 1)), statistics, np
    )
    np.testing.assert_array_equal(shared, each)


def test_a_kept_solve_cannot_be_changed_by_its_reader():
    """natural_parameters keeps its last few NumPy answers (an EM iteration reads each joint
    three times): they are read-only, and a second call gives the same values."""
    p, covariance = np.array([0.3, 0.4, 0.5]), np.array([0.02, 0.03, 0.01])
    h, interaction = cyclic_joint.natural_parameters(p, covariance, TRIANGLE)
    with pytest.raises(ValueError, match="read-only"):
        h[0] = 0.0
    again = cyclic_joint.natural_parameters(p.copy(), covariance.copy(), TRIANGLE)
    np.testing.assert_array_equal(again[1], interaction)
    fresh = cyclic_joint._natural_parameters(p, covariance, TRIANGLE, np)  # no keeping
    np.testing.assert_array_equal(fresh[1], interaction)
    other = cyclic_joint.natural_parameters(p, covariance * 2.0, TRIANGLE)
    assert not np.allclose(other[1], interaction)
    # the same bytes in another shape are another input
    batch = cyclic_joint.natural_parameters(p[None], covariance[None], TRIANGLE)
    assert batch[0].shape == (1, 3) and batch[1].shape == (1, 3)


def test_covariances_no_joint_has_get_nan_not_a_joint():
    """x0 = x1 and x1 = x2 always, but x0 != x2 always: each pair's table is valid, the three
    together are no joint, and the solve says so with NaN."""
    p = np.full(3, 0.5)
    impossible = np.array([0.25, 0.25, -0.25])
    h, interaction = cyclic_joint.natural_parameters(p, impossible, TRIANGLE)
    assert np.isnan(h).all() and np.isnan(interaction).all()


def test_tree_order_refuses_a_cycle():
    from bayescal.channels.dependence import tree_order

    linked = LinkedSet(np.arange(3), np.arange(3))
    with pytest.raises(ValueError, match="close a cycle: they have no parent-first order"):
        tree_order(linked, TRIANGLE)


def _mixture_log_likelihood(theta, counts, rows):
    """The log-likelihood of complete pattern counts under a triangle a0 ~ a1 ~ a2 ~ a0 beside
    two independent annotators, in natural coordinates, written out: ``theta`` holds the
    prevalence's logit, per class the triangle's fields (3) and interactions (3) and the
    others' logits (2)."""
    mu = special.expit(theta[0])
    total = 0.0
    per_class = []
    for y in (0, 1):
        h, interaction, others = (
            theta[1 + 8 * y : 4 + 8 * y],
            theta[4 + 8 * y : 7 + 8 * y],
            theta[7 + 8 * y : 9 + 8 * y],
        )
        triangle = np.array([_log_linear(x[:3], h, interaction, TRIANGLE) for x in rows])
        norm = sum(
            _log_linear(np.array(x), h, interaction, TRIANGLE) for x in product((0, 1), repeat=3)
        )
        rest = special.expit(others)
        outside = np.prod(np.where(rows[:, 3:] == 1, rest, 1.0 - rest), axis=1)
        per_class.append(triangle / norm * outside)
    mixture = (1.0 - mu) * per_class[0] + mu * per_class[1]
    total = counts @ np.log(mixture)
    return total, per_class, mu


def test_em_reaches_the_maximum_of_the_written_out_likelihood():
    """EM's M-step matches the completed answers' margins and pair tables, which is the
    log-linear model's maximum-likelihood step: on complete data its estimate is the maximum
    a direct optimiser of the written-out likelihood (natural coordinates, no solve) finds,
    channels and covariances within 1e-4, and within 0.02 of the truth on 20 000 items."""
    sim = _triangle_data(20_000, seed=1)
    # iterated to a change of 1e-12 per item (the default 1e-8 stops 3e-4 units short here)
    fit = bc.dawid_skene_em(sim.data, dependent=CYCLE, tol=1e-12, max_iter=20_000)
    rows = mask_combinations(np.ones(5, bool))
    observed = sim.data.annotations
    counts = np.array([(observed == row).all(1).sum() for row in rows], float)
    start = [0.0]
    for rates in (CHANNELS.a, CHANNELS.b):  # the independent point at the truth's channels
        start += list(special.logit(rates[:3])) + [0.0] * 3 + list(special.logit(rates[3:]))
    result = optimize.minimize(
        lambda t: -_mixture_log_likelihood(t, counts, rows)[0],
        np.array(start),
        method="BFGS",
        options={"gtol": 1e-8, "maxiter": 5000},
    )
    best, per_class, mu = _mixture_log_likelihood(result.x, counts, rows)
    assert fit.loglik == pytest.approx(best, abs=1e-4)
    assert fit.prevalence == pytest.approx(mu, abs=1e-4)
    for y, rates in enumerate((fit.channels.a, fit.channels.b)):
        joint = per_class[y]
        np.testing.assert_allclose(joint @ rows, rates, atol=1e-4)
        for d, (j, k) in enumerate(TRIANGLE):
            both = joint @ (rows[:, j] * rows[:, k])
            assert both - rates[j] * rates[k] == pytest.approx(fit.covariance[d, y], abs=1e-4)
    np.testing.assert_allclose(fit.channels.a, CHANNELS.a, atol=0.02)
    np.testing.assert_allclose(fit.channels.b, CHANNELS.b, atol=0.02)
    np.testing.assert_allclose(fit.covariance, _true_covariance(), atol=0.01)


def test_replicated_labels_of_a_cycle_follow_its_joint_and_keep_who_labelled_what():
    """The calibration test's replicates draw a cycle's members from its log-linear joint
    given the drawn class: each class's pattern frequencies match the joint within four
    standard errors; a label removed stays removed."""
    rng = np.random.default_rng(5)
    n = 60_000
    scores = rng.uniform(0, 1, n)
    labels = np.zeros((n, 5), np.int8)
    labels[::7, 4] = -1  # a fifth annotator outside the cycle leaves some items
    data = bc.AnnotatedScores(scores, labels)
    responses = data.responses()
    covariance = np.vstack([_true_covariance(), [[0.0, 0.0]]])[:3]
    label, truth = replicate_labels(
        rng,
        scores,
        responses.item,
        responses.annotator,
        CHANNELS.a,
        CHANNELS.b,
        TRIANGLE,
        covariance,
    )
    answers = np.full((n, 5), -1)
    answers[responses.item, responses.annotator] = label
    assert (answers[::7, 4] == -1).all()
    x = cyclic_joint.states(3)
    for y, rates in enumerate((CHANNELS.a, CHANNELS.b)):
        joint = np.exp(cyclic_joint.joint_of_covariance(rates[:3], covariance[:, y], TRIANGLE))
        of_class = answers[truth == y][:, :3]
        seen = np.array([(of_class == pattern).all(1).mean() for pattern in x])
        standard_error = np.sqrt(joint * (1 - joint) / len(of_class))
        assert (np.abs(seen - joint) < 4 * standard_error + 1e-4).all()


def test_every_pair_of_a_cycle_gets_its_joints_covariance():
    """A square's unnamed diagonal (a1, a3) is correlated through both paths around it: its
    covariance is the joint's, not a product along one path."""
    names = [f"a{j}" for j in range(4)]
    ring = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])
    a, b = CHANNELS.a[:4], CHANNELS.b[:4]
    interaction = np.array([[1.0, 2.0], [1.5, 0.5], [2.0, 1.0], [0.5, 1.5]])
    covariance = np.stack(
        [
            cyclic_joint.covariance_of_interaction(r, interaction[:, y], ring)
            for y, r in enumerate((a, b))
        ],
        axis=-1,
    )
    pairs, covariances = every_dependent_pair(ring, a, b, covariance)
    assert {tuple(p) for p in pairs[4:].tolist()} == {(0, 2), (1, 3)}
    x = cyclic_joint.states(4)
    for (j, k), c in zip(pairs[4:], covariances[4:]):
        for y, rates in enumerate((a, b)):
            joint = np.exp(cyclic_joint.joint_of_interaction(rates, interaction[:, y], ring))
            assert c[y] == pytest.approx(
                joint @ (x[:, j] * x[:, k]) - rates[j] * rates[k], abs=1e-10
            )
    assert dependent_pairs([tuple(names[i] for i in p) for p in ring], names).n_pairs == 4


@pytest.mark.slow
def test_nuts_recovers_a_cycle_and_the_posterior_tools_take_it():
    """fit_bayes(dawid_skene) with a triangle on 3 000 items: the truth's channels and
    covariances inside the 99% intervals, no sampler warning; the model checks replicate the
    data (nothing flagged); NC-ECE per draw runs; on these calibrated data neither the
    calibration test with this fit of the same items (its H0 draw steps the cycle's joint),
    nor with this fit of other items (its replicates draw the cycle's joint), nor the EM
    fit's bootstrap rejects at the 5% level."""
    import warnings

    sim = _triangle_data(3000, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = bc.fit_bayes(sim.data, model="dawid_skene", dependent=CYCLE, progress=False)
    a, b, _ = fit.draws()
    for draws, truth in ((a, CHANNELS.a), (b, CHANNELS.b)):
        low, high = np.quantile(draws, [0.005, 0.995], axis=0)
        assert ((low < truth) & (truth < high)).all()
    low, high = np.quantile(fit.covariance_draws(), [0.005, 0.995], axis=0)
    truth = _true_covariance()
    assert ((low < truth) & (truth < high)).all()
    checks = bc.check_model(sim.data, fit)
    assert not checks.table[checks.table["check"].isin(["ppc", "pairwise_agreement"])]["flag"].any()
    assert 0.0 <= bc.nc_ece_posterior(sim.data, fit).median < 0.05
    # the prior of a cycle's pair, for power scaling: the Logistic(0, 2) density of its J
    log_prior = fit.idata.log_prior["covariance"].values.reshape(-1, 3, 2)
    a, b, _ = fit.draws()
    covariance = fit.covariance_draws()
    for y, rates in enumerate((a, b)):
        _, interaction = cyclic_joint.natural_parameters(
            rates[:, :3], covariance[:, :, y], TRIANGLE
        )
        expected = stats.logistic.logpdf(interaction, scale=2.0)
        np.testing.assert_allclose(log_prior[:, :, y], expected, atol=1e-8)
    reused = bc.calibration_test(sim.data, fit, seed=1)
    assert reused.channels_from == "reuse" and reused.p_value > 0.05
    assert "Gibbs sweeps" in reused.method
    other = _triangle_data(3000, seed=7).data
    split = bc.calibration_test(other, fit, n_replicates=19, seed=1)
    assert split.channels_from == "split" and split.p_value > 0.05
    em = bc.dawid_skene_em(sim.data, dependent=CYCLE)
    result = bc.calibration_test(sim.data, em, n_replicates=19, seed=1)
    # calibrated data, every replicate refitted: not rejected at the 5% level
    assert result.n_replicates == 19 and result.p_value > 0.05


def test_the_linked_set_names_its_pairs_ends_among_its_members():
    linked = LinkedSet(np.array([2, 5, 7]), np.array([0, 2]))
    index = np.array([[5, 2], [0, 1], [7, 5]])
    np.testing.assert_array_equal(linked.ends(index), [[1, 0], [2, 1]])


def test_traced_arrays_need_the_programs_solve(monkeypatch):
    """The channels layer imports no JAX: on arrays other than NumPy's the solve is the one
    bayescal.models sets, and without it the call says so."""
    jax = pytest.importorskip("jax")
    monkeypatch.setattr(cyclic_joint, "program_solver", None)
    with pytest.raises(RuntimeError, match="import it first"):
        cyclic_joint.covariance_of_interaction(
            jax.numpy.full(3, 0.3), jax.numpy.ones(3), TRIANGLE, jax.numpy
        )
