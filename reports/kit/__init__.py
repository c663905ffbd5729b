"""The report's kit, below its sections. Its parts: plots (``plot``), tables as Markdown, HTML
and figures formatted for reading (``tables``) and the HTML page around the sections (``page``). It knows nothing of runs, plans
or studies: the sections above it do."""
