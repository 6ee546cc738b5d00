package org.p2psip.servlet;

import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.p2psip.metrics.StatusBoard;

/**
 * The node's HTTP side, on the container's HTTP connector: its status page, {@code /metrics}
 * and the JSON the page draws ({@link StatusBoard}). Until the SIP servlet has started the
 * board, every path answers 503.
 */
public final class StatusServlet extends HttpServlet {

    /** The servlet context attribute the SIP servlet leaves its board in. */
    static final String BOARD = "org.p2psip.status-board";

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        var board = (StatusBoard) getServletContext().getAttribute(BOARD);
        if (board == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "the node is starting");
            return;
        }
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        StatusBoard.Page page = board.get(path.isEmpty() ? "/" : path);
        response.setStatus(page.status());
        response.setContentType(page.type());
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(page.body().length);
        response.getOutputStream().write(page.body());
    }
}
