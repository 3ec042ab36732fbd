// Screenward's browser extension. It tells screenward-web-host, over native messaging, which
// tab is active in each window and which window has the focus, each time that changes and
// only then: no timer runs while nothing changes. The host relays it to the person's agent
// (or, in an account a guardian manages, to the system daemon), which counts the time on the
// X window it sees focused, so the extension never measures time itself.
// One source for Chromium (a service worker) and Firefox (a background script).
"use strict";

const host = "org.screenward.web";
let port = null;
let lastSent = "";
// Reports are made one after another, so an older one never overtakes a newer one.
let queue = Promise.resolve();

function connect() {
  port = chrome.runtime.connectNative(host);
  port.onDisconnect.addListener(() => {
    port = null;
    lastSent = "";
    // The host ended (the agent went away, or it failed): try again in a second. This is
    // the only timer, and it runs only while the host is missing.
    setTimeout(connect, 1000);
  });
  port.postMessage({ kind: "hello", extension: chrome.runtime.getManifest().version });
  changed();
}

function describe(tab) {
  if (!tab) return null;
  return { id: tab.id, url: tab.url || tab.pendingUrl || "", title: tab.title || "" };
}

async function report() {
  if (!port) return;
  const windows = await chrome.windows.getAll({ populate: true });
  const focused = windows.find((window) => window.focused);
  const message = {
    kind: "windows",
    focused: focused ? focused.id : -1,
    windows: windows.map((window) => ({
      id: window.id,
      incognito: window.incognito,
      tab: describe((window.tabs || []).find((tab) => tab.active)),
    })),
  };
  const text = JSON.stringify(message);
  if (text === lastSent || !port) return;
  lastSent = text;
  port.postMessage(message);
}

function changed() {
  queue = queue.then(report, report).catch((error) => console.error("screenward:", error));
}

chrome.windows.onFocusChanged.addListener(changed);
chrome.windows.onCreated.addListener(changed);
chrome.windows.onRemoved.addListener(changed);
chrome.tabs.onActivated.addListener(changed);
chrome.tabs.onRemoved.addListener(changed);
chrome.tabs.onAttached.addListener(changed);
chrome.tabs.onDetached.addListener(changed);
chrome.tabs.onReplaced.addListener(changed);
chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (tab.active && ("url" in change || "title" in change)) changed();
});

connect();
