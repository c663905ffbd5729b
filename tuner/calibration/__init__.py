"""Calibration of cost profiles against runs, and the model's error on held-out configurations."""
from tuner.calibration.calibrate import Calibration, calibrate, profile_target, render_calibration
from tuner.calibration.design import CALIBRATION, HELD_OUT, Point, pick
from tuner.calibration.fit import Fit, Observation, fit_costs, observe

__all__ = ["CALIBRATION", "HELD_OUT", "Calibration", "Fit", "Observation", "Point", "calibrate", "fit_costs",
           "observe", "pick", "profile_target", "render_calibration"]
