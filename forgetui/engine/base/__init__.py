"""Below everything: errors a user can cause, timestamps, one-line values, token counts, timed
regexes, YAML in and out."""
