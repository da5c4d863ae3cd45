#!/usr/bin/env python3
"""Writes the rows of a treasures CSV (make-csv.py's) as GeoJSON: a FeatureCollection
(one feature a line, as ogr2ogr writes it) and newline-delimited features, the same
treasures in the same order."""
import csv
import json
import sys

source, collection, ndjson = sys.argv[1:4]
with open(source, newline="") as rows, open(collection, "w") as fc, open(ndjson, "w") as nd:
    fc.write('{"type": "FeatureCollection", "name": "treasures",\n'
             '"crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}},\n'
             '"features": [\n')
    first = True
    for row in csv.DictReader(rows):
        feature = json.dumps({
            "type": "Feature",
            "id": row["key"],
            "geometry": {"type": "Point", "coordinates": [float(row["lon"]), float(row["lat"])]},
            "properties": {"name": row["name"], "description": row["description"],
                           "points": int(row["points"])},
        }, ensure_ascii=False, separators=(",", ":"))
        fc.write(("" if first else ",\n") + feature)
        nd.write(feature + "\n")
        first = False
    fc.write("\n]}\n")
