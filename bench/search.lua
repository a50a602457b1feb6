-- wrk script: POST /v1/search for a word the ingest run wrote.
wrk.method = "POST"
wrk.body = '{"query":"latency spike","limit":10}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")
