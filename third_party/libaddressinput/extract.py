#!/usr/bin/env python3
"""Writes formats.json from Google's libaddressinput country data.

Usage: extract.py path/to/libaddressinput/testdata/countryinfo.txt > formats.json

Keeps, for every country that has a postcode format: its key (ISO 3166-1 alpha-2), its name,
the postcode pattern ("zip"), the examples ("zipex") and the written prefix ("postprefix").
"""
import json
import sys

countries = {}
with open(sys.argv[1], encoding="utf-8") as source:
    for line in source:
        key, _, value = line.rstrip("\n").partition("=")
        parts = key.split("/")
        if len(parts) != 2 or parts[0] != "data":
            continue
        entry = json.loads(value)
        if "zip" not in entry:
            continue
        countries[parts[1]] = {
            "name": entry.get("name", parts[1]),
            "zip": entry["zip"],
            "zipex": entry.get("zipex", ""),
            **({"postprefix": entry["postprefix"]} if "postprefix" in entry else {}),
        }
json.dump(countries, sys.stdout, ensure_ascii=False, indent=0, sort_keys=True)
sys.stdout.write("\n")
