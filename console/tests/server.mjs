// The real server for the console's browser tests and its benchmark: started on `dataDir` with
// ephemeral API and admin ports; resolves with the child and both addresses once it is ready.
import { spawn } from "node:child_process";

export function startServer(binary, dataDir, extraArgs = []) {
  const child = spawn(binary, ["serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0",
    "--admin-listen", "127.0.0.1:0", ...extraArgs], { stdio: ["ignore", "pipe", "pipe"] });
  // Both pipes are read for as long as it runs (a pipe nobody reads stops the server once full);
  // the end of what it wrote is kept for the error of a start that fails.
  let start = "";
  let tail = "";
  let ready = false;
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      tail = (tail + chunk).slice(-20_000);
      if (ready) return;
      start += chunk;
      const api = start.match(/eventsvc ready: (https:\/\/127\.0\.0\.1:\d+)/);
      const admin = start.match(/eventsvc admin: (http:\/\/127\.0\.0\.1:\d+)/);
      if (api && admin) {
        ready = true;
        resolve({ child, api: api[1], admin: admin[1] });
      }
    });
    child.stderr.on("data", (chunk) => { tail = (tail + chunk).slice(-20_000); });
    child.on("exit", (code) => reject(new Error(`eventsvc exited (${code}) during start:\n${tail}`)));
  });
}
