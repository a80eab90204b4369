// Tidepool's service worker: cross-origin isolation on a static host that
// cannot send headers (GitHub Pages). The threads build needs
// SharedArrayBuffer, which a page has only when it is cross-origin isolated:
// served with Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp. This worker adds both to every
// response from the toy's own origin, so the page that registered it
// (index.html, "cross-origin isolation") is isolated from its next load on.
// Everything the page loads is from its own origin, so require-corp blocks
// nothing. Requests to other origins pass through untouched.
'use strict';

self.addEventListener('install', function () {
  self.skipWaiting();
});

self.addEventListener('activate', function (event) {
  // Take the open page at once: it reloads when its controller changes.
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (new URL(request.url).origin !== self.location.origin) return;
  // (Chromium rejects an only-if-cached request in any other mode.)
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(
    fetch(request).then(function (response) {
      if (response.type === 'opaque' || response.status === 0) return response;
      var headers = new Headers(response.headers);
      headers.set('Cross-Origin-Opener-Policy', 'same-origin');
      headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
      headers.set('Cross-Origin-Resource-Policy', 'same-origin');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers: headers });
    }),
  );
});
