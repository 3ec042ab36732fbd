// The shield page: what a tab on a shielded website shows instead of it. Its address ends
// with the page it stands for (?url=...), which the extension gives back once the website is
// no longer shielded. OK closes the tab, as the default shield's button closes an application.
"use strict";

// ?site=SITE&url=PAGE: the website as its store named it, then the page (left unencoded, so
// it is everything after "&url=").
const query = location.search;
const site = new URLSearchParams(query.split("&url=")[0]).get("site") || "This website";
document.title = `${site} is restricted`;
document.getElementById("title").textContent = `${site} is restricted`;
document.getElementById("subtitle").textContent = `You can't use ${site} right now because a limit has been set on it.`;
document.getElementById("primary").addEventListener("click", async () => {
  const tab = await chrome.tabs.getCurrent();
  if (tab) chrome.tabs.remove(tab.id);
});
