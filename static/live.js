// Live figures: each element with data-live-url has its [data-live] part asked for again
// every second (data-live-every, in ms) while the page is visible. The server answers
// 304 Not Modified, at the cost of one index probe, while the ETag it sent last (its change
// token) is still current; otherwise the fresh part, put in place. A failed request (the
// server restarting, a worker replaced, the network gone) is tried again, waiting longer
// each time up to 10 seconds, and the figures come back once the server answers.
// Without this script the figures are those of the page's load.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  for (const panel of document.querySelectorAll("[data-live-url]")) {
    const part = panel.querySelector("[data-live]");
    if (part) watch(panel, part);
  }
});

function watch(panel, part) {
  const url = panel.dataset.liveUrl;
  const every = Number(panel.dataset.liveEvery) || 1000;
  const MOST_MS = 10000;
  let etag = panel.dataset.liveEtag || "";
  let wait = every;
  let timer = null;
  let asking = false;
  let stopped = false;

  function schedule() {
    if (stopped || document.hidden || timer !== null || asking) return;
    timer = window.setTimeout(refresh, wait);
  }

  async function refresh() {
    timer = null;
    if (stopped || asking) return;
    asking = true;
    try {
      const headers = etag ? { "If-None-Match": etag } : {};
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store", headers });
      if (response.status === 304) {
        wait = every;
      } else if (response.redirected || response.status === 403 || response.status === 404) {
        // Signed out (the sign-in page came back) or the tenant or campaign is gone: keep
        // the figures shown and ask no more; reloading the page says what happened.
        stopped = true;
      } else if (!response.ok) {
        wait = Math.min(wait * 2, MOST_MS); // the server is restarting or overloaded
      } else {
        const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
        part.replaceChildren(...fresh.body.childNodes);
        etag = response.headers.get("ETag") || "";
        panel.dataset.liveEtag = etag;
        wait = every;
      }
    } catch (error) {
      wait = Math.min(wait * 2, MOST_MS); // no answer: try again, less often
    } finally {
      asking = false;
      schedule();
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      window.clearTimeout(timer);
      timer = null;
    } else if (timer === null) {
      refresh(); // back in view: bring the figures up to date at once
    }
  });
  schedule();
}
