"""The report kit's plot helpers."""
from reports.kit import plot
from reports.kit.plot import log_axis_if_wide


def test_a_log_axis_only_for_figures_spanning_more_than_twenty_times():
    plt = plot.pyplot()
    figure, axes = plt.subplots()
    assert log_axis_if_wide(axes, "y", [2.0, 41.0]) and axes.get_yscale() == "log"
    assert axes.yaxis.get_major_formatter()(1500.0, 0) == "1,500"     # plain numbers on the ticks, not 10^3
    assert not log_axis_if_wide(axes, "x", [2.0, 40.0], "ms", "ms, log scale") and axes.get_xscale() == "linear"
    assert axes.get_xlabel() == "ms"
    assert log_axis_if_wide(axes, "x", [2.0, 41.0], "ms", "ms, log scale") and axes.get_xlabel() == "ms, log scale"
    assert not log_axis_if_wide(axes, "x", [0.0, 40.0]) and not log_axis_if_wide(axes, "x", [])
    plt.close(figure)
