// drop-sw.js: the drop page's service worker (docs/PHONE.md §W4.2), registered with the
// scope /drop, which covers the drop page and nothing of the gallery. It makes the page
// installable and is the Web Share Target's receiver: Android's share sheet posts the
// shared photos to /drop/share; this worker takes them from that post, in memory only,
// and hands them to the drop page that its redirect opens, which seals them before
// anything leaves the phone. The worker never stores a shared file, a name or a picture,
// and passes every other request to the network untouched.

/** Shared files waiting for their page, by batch id: {files, taken} */
const batches = new Map();
/** How long shared files wait for the page that is to take them (§W4.2). */
const WAIT_MS = 60_000;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method === 'POST' && url.origin === self.location.origin && url.pathname === '/drop/share') {
    event.respondWith(receiveShare(event));
  }
});

async function receiveShare(event) {
  let files = [];
  try {
    const form = await event.request.formData();
    files = form.getAll('media').filter((entry) => entry instanceof File);
  } catch {
    files = [];
  }
  const id = crypto.randomUUID();
  let settle;
  const taken = new Promise((resolve) => { settle = resolve; });
  batches.set(id, { files, settle });
  // Chrome stops an idle worker after about 30 s; the page may take longer to open.
  // The worker stays alive until the page has the files, or gives them up after WAIT_MS.
  event.waitUntil(Promise.race([taken, new Promise((resolve) => setTimeout(resolve, WAIT_MS))])
    .then(() => batches.delete(id)));
  return Response.redirect(`/drop?share=${id}`, 303);
}

self.addEventListener('message', (event) => {
  const { type, id } = event.data || {};
  if (type !== 'take' || !event.ports[0]) return;
  const batch = batches.get(id);
  batches.delete(id);
  event.ports[0].postMessage({ files: batch ? batch.files : null });
  batch?.settle();
});
