-- wrk script: POST /v1/search for a rare word the ingest run wrote (one event in 5000).
wrk.method = "POST"
wrk.body = '{"query":"overheat","limit":10}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")
