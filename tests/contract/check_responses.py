#!/usr/bin/python3
"""Checks every answer the integration and fault tests received from the public API against the
OpenAPI document: the path and method are described, the status is one of the operation's
responses, and a JSON body validates against that response's schema (JSON Schema 2020-12, with the
document's own $refs). Answers on undescribed paths must be error bodies.

    check_responses.py <docs/openapi.yaml> <log directory>
"""
import glob
import json
import os
import re
import sys

import jsonschema
import yaml


def main():
    spec_path, log_dir = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    resolver = jsonschema.RefResolver.from_schema(spec)

    def validator(schema):
        return jsonschema.Draft202012Validator(schema, resolver=resolver,
                                               format_checker=jsonschema.FormatChecker())

    error_schema = validator({"$ref": "#/components/schemas/Error"})
    templates = []
    for template, item in spec["paths"].items():
        parts = re.split(r"(\{[^}]+\})", template)
        pattern = "^" + "".join("[^/]+" if part.startswith("{") else re.escape(part)
                                for part in parts) + "$"
        templates.append((re.compile(pattern), template, item))

    lines = []
    for name in sorted(glob.glob(os.path.join(log_dir, "*.jsonl"))):
        with open(name) as f:
            lines.extend(json.loads(line) for line in f if line.strip())
    if not lines:
        sys.exit("no answers were recorded in %s: did the integration tests run?" % log_dir)

    problems = []
    checked = {}
    for answer in lines:
        method, path, status = answer["method"].lower(), answer["path"], answer["status"]
        where = "%s %s -> %d" % (method.upper(), path, status)
        head = method == "head"  # a GET without the body (RFC 9110): checked as the GET
        if head:
            method = "get"
        body = answer["body"]
        matched = next(((t, item) for regex, t, item in templates if regex.match(path)), None)
        operation = matched[1].get(method) if matched else None
        if operation is None:
            # Unknown routes and methods: the API still answers with its error body.
            if status < 400:
                problems.append("%s: a success on a path or method the document does not describe"
                                % where)
                continue
            schema = error_schema
            key = "(undescribed) %d" % status
        else:
            response = operation["responses"].get(str(status)) or operation["responses"].get("default")
            if response is None:
                problems.append("%s: status %d is not documented for %s %s"
                                % (where, status, method.upper(), matched[0]))
                continue
            if "$ref" in response:
                response = resolver.resolve(response["$ref"])[1]
            content = response.get("content", {})
            if head or "application/json" not in content:
                key = "%s %s %d" % (method.upper(), matched[0], status)
                checked[key] = checked.get(key, 0) + 1
                continue
            schema = validator(content["application/json"]["schema"])
            key = "%s %s %d" % (method.upper(), matched[0], status)
        try:
            document = json.loads(body)
        except ValueError:
            problems.append("%s: the body is not JSON: %r" % (where, body[:200]))
            continue
        errors = sorted(schema.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors[:3]:
            problems.append("%s: at /%s: %s" % (where, "/".join(map(str, error.absolute_path)),
                                                error.message[:300]))
        checked[key] = checked.get(key, 0) + 1

    for key in sorted(checked):
        print("%6d  %s" % (checked[key], key))
    print("%d answers checked against %s" % (len(lines), spec_path))
    if problems:
        print("\n%d answers do not match the document:" % len(problems))
        for problem in problems[:60]:
            print("  " + problem)
        sys.exit(1)


if __name__ == "__main__":
    main()
