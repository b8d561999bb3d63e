// Live lists of the workbench: every few seconds the page asks whether anything of its
// organization changed (a shipment's status, a new order, a print job's outcome); when it
// did, the page's content is fetched again and swapped in place, without a reload. Nothing is
// swapped while someone types in the page, or while it is hidden.
(() => {
  const main = document.querySelector('main[data-changes]');
  if (!main) return;
  const typing = () => {
    const active = document.activeElement;
    return active && main.contains(active) && active.matches('input, select, textarea');
  };
  async function refresh() {
    if (document.hidden || typing()) return;
    try {
      const asked = await fetch(main.dataset.changes, { headers: { accept: 'application/json' } });
      if (!asked.ok) return;
      const { marker } = await asked.json();
      if (marker === main.dataset.marker) return;
      const page = await fetch(window.location.href);
      if (!page.ok || typing()) return;
      const fresh = new DOMParser().parseFromString(await page.text(), 'text/html')
        .querySelector('main[data-changes]');
      if (!fresh) return;
      main.replaceChildren(...fresh.childNodes);
      main.dataset.marker = fresh.dataset.marker;
    } catch {
      // Offline or restarting: the next round tries again.
    }
  }
  window.setInterval(refresh, 3000);
})();
