"""The report's sections: each turns what the files hold (``runs.RunFigures`` for RunResults,
plan, study and gate files as read) into Markdown lines, HTML parts and CSV text, with the kit
(``reports.kit``) below them. ``reports.report`` composes them into the report's files."""
