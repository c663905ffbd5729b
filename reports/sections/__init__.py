"""The report's sections, each one kind of file (RunResults, plans, studies, gates) as Markdown
lines, HTML parts and CSV text. Each turns what the files hold (``runs.RunFigures`` for RunResults,
plan, study and gate files as read) into them, with the kit (``reports.kit``) below them. ``reports.report`` composes them into the report's files."""
