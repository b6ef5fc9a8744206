// The campaign page's Progress panel: its counts are fetched again every 10 seconds while
// the page is visible. Without this script the panel shows the counts as of the page's load.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const panel = document.querySelector("[data-progress-url]");
  const counts = panel && panel.querySelector("[data-progress]");
  if (!counts) return;
  const url = panel.dataset.progressUrl;
  const EVERY_MS = 10000;
  let timer = null;
  let asking = false;
  let stopped = false;

  function schedule() {
    if (stopped || document.hidden || timer !== null || asking) return;
    timer = window.setTimeout(refresh, EVERY_MS);
  }

  async function refresh() {
    timer = null;
    if (stopped || asking) return;
    asking = true;
    try {
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (response.redirected || !response.ok) {
        // Signed out (the sign-in page came back) or the campaign is gone: keep the counts
        // shown and ask no more; reloading the page says what happened.
        stopped = true;
        return;
      }
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      counts.replaceChildren(...fresh.body.childNodes);
    } catch (error) {
      // The network failed this time: the next turn tries again.
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
      refresh(); // back in view: bring the counts up to date at once
    }
  });
  schedule();
});
