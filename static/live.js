// Live figures: each element with data-live-url has its [data-live] part kept up to date
// while the page is open.
//
// First by a stream of server-sent events (data-live-stream): the server sends the part
// whenever it changes, rendered once for every viewer, each event's id its ETag. The stream
// ends every few minutes (the browser connects again and is authorized again) and after a
// server or worker restart; EventSource connects again by itself, saying the ETag it shows,
// and gets the part at once if it changed meanwhile.
//
// Else by polling data-live-url every second (data-live-every, in ms) while the page is
// visible: without EventSource, when the stream is refused (the server's streams all taken,
// a proxy in the way) or fails again and again. The server answers 304 Not Modified, at the
// cost of one index probe, while the ETag it sent last is still current; otherwise the fresh
// part. A failed request is tried again, waiting longer each time up to 10 seconds. Polling
// that works again after failures tries the stream again.
//
// A stream refused (429 or 503: too many pages of this sign-in or of this tenant follow live
// parts, or the server's streams are all taken) is asked why, as JSON, and the page says it
// above the figures while it polls. A stream that ends saying why (an "end" event: signed
// out, the tenant no longer the viewer's, or gone) stops the figures with a notice instead
// of connecting again.
//
// A part rendered once for every viewer holds no one's CSRF token: the page's own is put in
// its forms. Without this script the figures are those of the page's load.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  for (const panel of document.querySelectorAll("[data-live-url]")) {
    const part = panel.querySelector("[data-live]");
    if (part) watch(panel, part);
  }
});

function pageCsrfToken(part) {
  for (const input of document.querySelectorAll("input[name=csrf_token]")) {
    if (input.value && !part.contains(input)) return input.value;
  }
  return "";
}

function watch(panel, part) {
  const url = panel.dataset.liveUrl;
  const streamUrl = panel.dataset.liveStream;
  const every = Number(panel.dataset.liveEvery) || 1000;
  const MOST_MS = 10000;
  const STREAM_FAILURES = 3; // failed connections in a row before polling instead
  const STREAM_AGAIN_MS = 30000; // polling after failures: try the stream again after this
  let etag = panel.dataset.liveEtag || "";
  let wait = every;
  let timer = null;
  let asking = false;
  let stopped = false;
  let source = null;
  let failures = 0;
  let streamAgainAt = 0;
  let notice = null;

  // What the page says of its live updates, above the figures; nothing while they are live.
  function say(text) {
    if (!notice) notice = window.statusLine(part, "liveNotice");
    notice.textContent = text || "";
    notice.hidden = !text;
  }

  function seconds(ms) {
    const count = Math.round(ms / 1000);
    return count === 1 ? "every second" : `every ${count} seconds`;
  }

  // Why the stream was refused, as the server says it (the same address, asked for JSON:
  // no stream is opened to answer).
  async function askWhy() {
    const message = await window.whyStreamRefused(streamUrl);
    if (!stopped && !source && message) {
      say(`${message} This page refreshes ${seconds(every)} instead.`);
    }
  }

  const ENDED = {
    signedOut: "You are signed out: these figures are no longer updated. Sign in again to follow them.",
    noAccess: "You no longer have access to this tenant: these figures are no longer updated.",
    gone: "These figures are no longer updated: what they show no longer exists, or is no longer yours to see.",
  };

  // The server ended the stream for good: the figures stay as they are, said to be so.
  function ended(why) {
    stopped = true;
    if (source) source.close();
    source = null;
    window.clearTimeout(timer);
    timer = null;
    panel.dataset.liveMode = "ended";
    say(ENDED[why] || ENDED.signedOut);
  }

  function show(html, tag) {
    const fresh = new DOMParser().parseFromString(html, "text/html");
    const token = pageCsrfToken(part);
    for (const input of fresh.querySelectorAll("input[name=csrf_token]")) {
      if (!input.value) input.value = token;
    }
    part.replaceChildren(...fresh.body.childNodes);
    etag = tag || "";
    panel.dataset.liveEtag = etag;
  }

  function stream() {
    const address = new URL(streamUrl, window.location.href);
    address.searchParams.set("since", etag);
    source = new EventSource(address);
    panel.dataset.liveMode = "stream";
    source.onopen = () => {
      failures = 0;
      say("");
    };
    source.onmessage = (message) => {
      failures = 0;
      show(message.data, message.lastEventId);
    };
    source.addEventListener("end", (message) => ended(message.data));
    source.onerror = () => {
      // CLOSED: refused (503, signed out, gone) and not to be tried again by the browser;
      // CONNECTING: the browser tries again by itself, unless it keeps failing.
      failures += 1;
      if (source.readyState === EventSource.CLOSED || failures >= STREAM_FAILURES) {
        const refused = source.readyState === EventSource.CLOSED;
        source.close();
        source = null;
        streamAgainAt = Date.now() + STREAM_AGAIN_MS;
        poll();
        if (refused) askWhy();
      }
    };
  }

  function poll() {
    panel.dataset.liveMode = "poll";
    wait = every;
    schedule();
  }

  function schedule() {
    if (stopped || source || document.hidden || timer !== null || asking) return;
    timer = window.setTimeout(refresh, wait);
  }

  async function refresh() {
    timer = null;
    if (stopped || asking || source) return;
    asking = true;
    try {
      const headers = etag ? { "If-None-Match": etag } : {};
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store", headers });
      if (response.status === 304) {
        wait = every;
      } else if (response.redirected || response.status === 403 || response.status === 404) {
        // Signed out (the sign-in page came back) or the tenant or campaign is gone: keep
        // the figures shown and ask no more.
        ended(response.redirected ? "signedOut" : response.status === 403 ? "noAccess" : "gone");
      } else if (!response.ok) {
        wait = Math.min(wait * 2, MOST_MS); // the server is restarting or overloaded
      } else {
        show(await response.text(), response.headers.get("ETag"));
        wait = every;
      }
      const answered = response.ok || response.status === 304;
      if (!stopped && answered && streamUrl && window.EventSource && Date.now() >= streamAgainAt) {
        stream(); // the server answers again: back to its stream
      }
    } catch (error) {
      wait = Math.min(wait * 2, MOST_MS); // no answer: try again, less often
    } finally {
      asking = false;
      schedule();
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (source) return; // a stream keeps the part current, seen or not
    if (document.hidden) {
      window.clearTimeout(timer);
      timer = null;
    } else if (timer === null) {
      refresh(); // back in view: bring the figures up to date at once
    }
  });
  if (streamUrl && window.EventSource) {
    stream();
  } else {
    poll();
  }
}
