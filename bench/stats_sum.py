#!/usr/bin/env python3
"""bench/stats_sum.py FILE FIELD... - sums each FIELD (a counter name, or
A+B for the sum of two) over the nodes' objects of a TSR_STATS_JSON file
and prints the sums on one line, in the order asked."""
import json
import sys

total = {}
for line in open(sys.argv[1]):
    for key, value in json.loads(line).items():
        if isinstance(value, (int, float)):
            total[key] = total.get(key, 0) + value
print(" ".join(str(sum(total[k] for k in field.split("+"))) for field in sys.argv[2:]))
