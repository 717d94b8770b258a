-- The goals a visitor-day's requests reached (a label its site's handler
-- or operator gave, checked as a campaign's labels are), and how many of
-- its requests reached each: a visitor-day's part, numbered like its paths
-- and sources.
CREATE TABLE visitor_goals (
    visitor_day BIGINT NOT NULL, -- visitor_days.id
    goal        TEXT   NOT NULL,
    requests    BIGINT NOT NULL,
    CONSTRAINT visitor_goals_key PRIMARY KEY (visitor_day, goal)
);
