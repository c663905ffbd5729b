import sys

from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
from pyspark.sql.functions import struct, to_json

args = getResolvedOptions(sys.argv, ["JOB_NAME", "input_path"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session

rows = spark.read.option("header", "true").csv(args["input_path"])
(rows.select(to_json(struct("*")).alias("value"))
     .write.format("kafka")
     .option("kafka.bootstrap.servers", "b-1.payments.abc123.c2.kafka.eu-west-1.amazonaws.com:9096")
     .option("kafka.batch.size", 131072)
     .option("kafka.client.id", "daily-card-load")
     .option("topic", "card-transactions")
     .save())
