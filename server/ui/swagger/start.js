// Starts Swagger UI on the server's own /openapi.json. A file, not an inline script, because the page's
// Content-Security-Policy allows scripts from this server only. When the document is drawn, <body> gets
// data-screen="swagger" and data-ready="true", the marks the web view's screens set for tests and `chromium --dump-dom`.
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    displayOperationId: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
    onComplete: () => { Object.assign(document.body.dataset, {screen: "swagger", ready: "true"}); },
  });
});
