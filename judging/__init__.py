"""Judges runs against the neighbours' SLAs and the cluster's rules: check's gate and its advice, a policy's rules on a job, and the model's own error as a margin.

It reads RunResults and scenarios and never runs the model: the tuner, the reports and the command
line ask it for verdicts (``gate``), for the change to try next (``advice``), for the rules of a
policy a job breaks (``policy_gate``) and for how sure a verdict is (``margin``).
"""
