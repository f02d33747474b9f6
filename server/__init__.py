"""The application layer: the column-lineage REST API and the `wrangler` command line."""
