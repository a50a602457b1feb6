// Built by CMake into the build directory (EVENTSVC_CONSOLE_OUT), then compiled into the server,
// which serves it at /console/. No inline script or style: the server's Content-Security-Policy
// allows only the page's own files.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/console/",
  build: {
    outDir: process.env.EVENTSVC_CONSOLE_OUT ?? "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: "es2022",
    reportCompressedSize: false,
  },
});
