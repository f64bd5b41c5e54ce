// router.js: where the page is, kept in the address's fragment so that Back,
// Forward and a reload work: `#/` (all photos), `#/favorites`, `#/trash`,
// `#/folder/ID`, each optionally followed by `/item/ID` while the viewer shows
// that item. The fragment never reaches the server. It holds random ids only,
// never a name, and never a search (docs/SECURITY.md, "The browser"): a search
// lives in the page and is gone with it.

const ID = /^[0-9A-Za-z-]{1,64}$/;

/** The route in `hash`; anything it does not recognise is all photos. */
export function parseRoute(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodePart);
  const route = { view: 'all', folderId: null, itemId: null };
  let k = 0;
  if (parts[k] === 'favorites' || parts[k] === 'trash') {
    route.view = parts[k];
    k += 1;
  } else if (parts[k] === 'folder' && ID.test(parts[k + 1] ?? '')) {
    route.view = 'folder';
    route.folderId = parts[k + 1];
    k += 2;
  }
  if (parts[k] === 'item' && ID.test(parts[k + 1] ?? '')) route.itemId = parts[k + 1];
  return route;
}

/** A part of the fragment decoded, or '' when it is not valid percent-encoding (a hand-edited address). */
function decodePart(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return '';
  }
}

/** The fragment of `route`. */
export function formatRoute(route) {
  let hash = '#/';
  if (route.view === 'favorites' || route.view === 'trash') hash += route.view;
  else if (route.view === 'folder' && route.folderId) hash += 'folder/' + encodeURIComponent(route.folderId);
  if (route.itemId) hash += (hash.endsWith('/') ? '' : '/') + 'item/' + encodeURIComponent(route.itemId);
  return hash;
}

/** The route with the item left out: the view under the viewer. */
export function viewOf(route) {
  return { view: route.view, folderId: route.view === 'folder' ? route.folderId : null, itemId: null };
}

export class Router {
  /** `onRoute(route)` runs for every change the user makes (Back, Forward, an edited
   * address). `closeOverlay()` runs first and returns true when Back only closed
   * something over the page (a dialog): the page then stays where it was. */
  constructor(onRoute, { closeOverlay = () => false } = {}) {
    this.onRoute = onRoute;
    // Not the address at load, which may still carry the access token (api.js takes it
    // out): only a route this router wrote or read since.
    this.shown = { hash: '#/', state: null };
    window.addEventListener('popstate', () => {
      if (closeOverlay()) {
        // The address moved back already; put back the entry that was on show.
        history.pushState(this.shown.state, '', this.shown.hash);
        return;
      }
      this.remember();
      this.onRoute(this.current());
    });
  }

  /** Notes the entry on show, for a Back that only closes a dialog: its route, rebuilt,
   * so that nothing but a route (no token) is ever put back. */
  remember() {
    this.shown = { hash: formatRoute(this.current()), state: history.state };
  }

  current() {
    return parseRoute(location.hash);
  }

  /** Goes to `route`: a new history entry, or with `replace` the current one rewritten.
   * An item pushed over its view is marked, so that closing the viewer can go Back
   * rather than add a second entry of the same view. */
  go(route, { replace = false } = {}) {
    const hash = formatRoute(route);
    const overView = replace ? !!route.itemId && !!history.state?.overView : !!route.itemId;
    const state = { overView };
    if (hash === location.hash && !replace) return this.onRoute(route);
    if (replace) history.replaceState(state, '', hash);
    else history.pushState(state, '', hash);
    this.remember();
    return this.onRoute(route);
  }

  /** Rewrites the address without acting on it (the viewer stepped to another item). */
  note(route) {
    const hash = formatRoute(route);
    if (hash !== location.hash) history.replaceState(history.state, '', hash);
    this.remember();
  }

  /** Leaves the item for its view: Back when the item was pushed over it, else a rewrite. */
  closeItem() {
    const route = this.current();
    if (!route.itemId) return;
    if (history.state?.overView) history.back();
    else this.go(viewOf(route), { replace: true });
  }
}
