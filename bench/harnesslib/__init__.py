"""The benchmark harness's parts; bench/harness.py is its command line."""
